"""Runtime helpers called by generated derivative code, one module per family.

Generated modules import them as ``from s2sad.runtime import unbroadcast, ...``; ``--standalone``
copies their source into the module instead.  Every public function of a submodule listed here is a
helper; each is plain NumPy, small enough to read and to copy.
"""

from .arrays import *  # noqa: F403
from .core import *  # noqa: F403
from .elementary import *  # noqa: F403
from .linalg import *  # noqa: F403
from .pyvalues import *  # noqa: F403
from .trees import *  # noqa: F403
