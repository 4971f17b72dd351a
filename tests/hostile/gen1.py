import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkt import *
import os
# gen1.py [DIR]: writes the small crafted traces into DIR (default: t/ beside this file).
D=sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), 't'); os.makedirs(D, exist_ok=True)
def w(name, data): open(f'{D}/{name}','wb').write(data)
# valid: one thread malloc/free
w('valid.trace', bundle([process(), events(0, [('malloc',1,1,64),('free',1,1)]), end()]))
# cross-thread valid
w('xthread.trace', bundle([process(), events(0, [('malloc',1,1,64)]), events(1, [('free',1,1)]), end()]))
# cycle
w('cycle.trace', bundle([process(), events(0, [('free',1,2),('malloc',1,1,64)]), events(1, [('free',1,1),('malloc',1,2,64)]), end()]))
# cycle of 3
w('cycle3.trace', bundle([process(), events(0, [('free',1,3),('malloc',1,1,64)]), events(1, [('free',1,1),('malloc',1,2,64)]), events(2, [('free',1,2),('malloc',1,3,64)]), end()]))
# self-wait: free before malloc same thread
w('selfwait.trace', bundle([process(), events(0, [('free',1,1),('malloc',1,1,64)]), end()]))
# only thread 0xFFFFFFFF
w('thread_max.trace', bundle([process(), events(0xffffffff, [('malloc',1,1,64),('free',1,1)]), end()]))
# thread max first then thread 0
w('thread_max_then0.trace', bundle([process(), events(0xffffffff, [('malloc',1,1,64)]), events(0, [('free',1,1)]), end()]))
# size 2^64-1
w('size_max.trace', bundle([process(), events(0, [('malloc',1,1,2**64-1),('free',1,1)]), end()]))
w('size_2_63.trace', bundle([process(), events(0, [('malloc',1,1,2**63),('free',1,1)]), end()]))
# two allocs wrapping live: 2^63 + 2^63 -> live wraps to 0
w('size_wrap2.trace', bundle([process(), events(0, [('malloc',1,1,2**63),('malloc',1,2,2**63),('free',1,1),('free',1,2)]), end()]))
# size near 2^64 for footprint wrap with cross-thread wait: thread0 malloc huge(1) then malloc(2); thread1 free(2)
w('hugefail_wait.trace', bundle([process(), events(0, [('malloc',1,1,2**64-64),('malloc',1,2,64),('free',1,1)]), events(1, [('free',1,2)]), end()]))
# calloc huge
w('calloc_max.trace', bundle([process(), events(0, [('calloc',1,1,2**64-1)]), end()]))
# realloc growth huge
w('realloc_huge.trace', bundle([process(), events(0, [('malloc',1,1,16),('realloc',1,1,2,2**64-4096),('free',1,2)]), end()]))
# unknown frees
w('unknown_free.trace', bundle([process(), events(0, [('free',1,999),('malloc',1,1,8),('free',1,1)]), end()]))
# double alloc
w('double_alloc.trace', bundle([process(), events(0, [('malloc',1,1,8),('malloc',1,1,8)]), end()]))
# double free
w('double_free.trace', bundle([process(), events(0, [('malloc',1,1,8),('free',1,1),('free',1,1)]), end()]))
# posix_memalign align 0 / 3
w('align0.trace', bundle([process(), events(0, [('posix_memalign',1,1,64,0),('free',1,1)]), end()]))
w('align3.trace', bundle([process(), events(0, [('aligned_alloc',1,1,64,3),('free',1,1)]), end()]))
w('align_2_30.trace', bundle([process(), events(0, [('memalign',1,1,1,2**30),('free',1,1)]), end()]))
w('align_2_31.trace', bundle([process(), events(0, [('memalign',1,1,1,2**31),('free',1,1)]), end()]))
# realloc of object to itself (old==new)
w('realloc_self.trace', bundle([process(), events(0, [('malloc',1,1,8),('realloc',1,1,1,16)]), end()]))
# huge gaps
w('gaps.trace', bundle([process(), events(0, [('malloc',2**62,1,8),('free',2**62,1)], factor=1<<32), end()]))
# free then realloc the freed object cross-thread
w('realloc_after_free.trace', bundle([process(), events(0, [('malloc',1,1,8),('free',1,1)]), events(1, [('realloc',1,1,2,16)]), end()]))
# empty process (no events) only
w('noevents.trace', bundle([process(), end()]))
# no processes at all
w('empty_bundle.trace', bundle([]))
# block before process
w('events_first.trace', bundle([events(0, [('malloc',1,1,8)]), process(), end()]))
# end block with huge counter n
w('end_badn.trace', bundle([process(), block(3, struct.pack('<I', 0xffffffff))]))
# process with exe len overflow
w('proc_badlen.trace', bundle([block(1, struct.pack('<QQQQ',1,1,0,0)+struct.pack('<I',0xffffffff))]))
# many processes same pid
w('dup_pid.trace', bundle([process(pid=5), events(0,[('malloc',1,1,8)]), end(), process(pid=5), events(0,[('malloc',1,1,8)]), end()]))
# event count declared > actual (count matches?) count mismatched: declare 2 events but encode 1 + trailing
p = bytearray(struct.pack('<Q',1<<32)); p += bytes([1,1,1,8]); p += bytes([4,1,1])
w('count_lie.trace', bundle([process(), block(2, bytes(p), count=1)]))
# zero factor
w('factor0.trace', bundle([process(), events(0, [('malloc',1,1,8)], factor=0), end()]))
# trailing garbage after trailer
w('trailing.trace', bundle([process(), events(0, [('malloc',1,1,8)]), end()]) + b'x')
