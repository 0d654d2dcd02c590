import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # fd, rule_cases
sys.path.insert(1, str(Path(__file__).parent.parent))  # benchmarks
