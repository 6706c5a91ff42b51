"""Is attention an explanation? Attribution, head importance and the logit lens (issue 16)."""
