# gen_memalign.py OUT ALIGN [OP]: one process whose thread 0 makes one aligned call (OP:
# posix_memalign by default, or aligned_alloc / memalign) with alignment ALIGN, then frees it.
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkt import *
out, align = sys.argv[1], int(sys.argv[2])
op = sys.argv[3] if len(sys.argv) > 3 else 'posix_memalign'
blocks = [process(), events(0, [(op, 1, 1, 64, align), ('free', 1, 1)]), end()]
open(out, 'wb').write(bundle(blocks))
