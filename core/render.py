"""Pictures of a scenario and its reach: moved to :mod:`movecore.tools.render`; this path
(documented in docs/api.md) stays as an alias.

    from movecore.render import picture, to_svg, to_text, render_svg
"""
from .tools.render import *  # noqa: F401,F403
from .tools.render import picture, render_svg, solve_for_picture, to_svg, to_text  # noqa: F401
