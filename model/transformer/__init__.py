"""transformer"""
