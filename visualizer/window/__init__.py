"""The Qt window: starting the app (platform checks, --screenshot), the main window and its
menus, what it opens, exports and remembers, and the Compare page."""
