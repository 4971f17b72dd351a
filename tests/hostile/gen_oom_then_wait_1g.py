import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkt import *
# thread 0: 1000 malloc/free pairs, then a 1 GiB malloc (fails under `ulimit -v 600000`), then
# object 2, which thread 1 waits for
evs=[]; oid=10
for i in range(1000):
    evs.append(('malloc',1,oid,32)); evs.append(('free',1,oid)); oid+=1
evs.append(('malloc',1,1,1<<30)); evs.append(('malloc',1,2,64))
blocks=[process()]
blocks.append(events(0, evs))
blocks.append(events(1, [('free',1,2)]))
blocks.append(end())
open(sys.argv[1],'wb').write(bundle(blocks))
