"""The "Will it fit?" window page (engine start-up sizing before launch)."""

from gpudesk.ui.serve_fit.page import ServeFitPage, open_serve_fit_dialog

__all__ = ["ServeFitPage", "open_serve_fit_dialog"]
