"""Asynchronous operations in flight, and the mbarrier objects that track them.

One `AsyncState` per batch of CTAs (created on first use) holds:

* pending `cp.async` copies (sm_80), per issuing thread and commit group;
* pending `cp.async.mbarrier.arrive` arrive-ons, which fire when the thread's earlier copies
  complete;
* pending bulk operations (`cp.async.bulk*`, `cp.reduce.async.bulk*`, TMA), each completing on
  an mbarrier (`.mbarrier::complete_tx::bytes`) or in a thread's bulk async-group;
* threads parked in `mbarrier.try_wait`/`test_wait` until the phase they wait for completes.

When an operation completes is the documented policy of docs/async-copies.md: never before a
wait that needs it (a kernel that reads the destination early sees the old bytes), at the wait
that needs it, and, when no thread can run any more, everything outstanding (the hardware
finishes its copies eventually). `mode="late"` narrows waits to what the PTX ISA guarantees
(`cp.async.wait_group N` completes only groups older than the newest N) and reads sources when
the copy completes rather than when it is issued.

An mbarrier is the 8 bytes it occupies in shared memory, in this emulator's own encoding (the
ISA leaves it opaque): bits 0-19 pending arrivals, 20-39 expected arrivals, 40-60 the
transaction count (21-bit two's complement), bit 61 set once initialised, bit 63 the phase
parity. Kernels that only use the mbarrier instructions never see the encoding.
"""
from __future__ import annotations

import numpy as np

from . import errors
from .handlers import on_thread_exit, stall_resolver

M20 = (1 << 20) - 1
TX_LIMIT = (1 << 20) - 1          # |tx-count| <= 2^20 - 1 (PTX ISA: mbarrier tx-count range)
VALID = 1 << 61
PHASE = 1 << 63


def unpack(w: int):
    """(phase, pending, expected, tx, valid) of a barrier word."""
    tx = (w >> 40) & ((1 << 21) - 1)
    if tx >= 1 << 20:
        tx -= 1 << 21
    return (w >> 63) & 1, w & M20, (w >> 20) & M20, tx, bool(w & VALID)


def pack(phase: int, pending: int, expected: int, tx: int) -> int:
    return (phase << 63) | VALID | ((tx & ((1 << 21) - 1)) << 40) | (expected << 20) | pending


class Place:
    """A barrier (or any 8-byte shared location): the backing array and byte index that
    memory.Spaces.resolve gave for it, the thread and instruction to blame for faults."""
    __slots__ = ("backing", "idx", "address")

    def __init__(self, backing, idx: int, address: int):
        self.backing, self.idx, self.address = backing, int(idx), int(address)

    @property
    def key(self):
        return (id(self.backing), self.idx)

    def read(self) -> int:
        return int(self.backing[self.idx:self.idx + 8].view(np.uint64)[0])

    def write(self, w: int) -> None:
        self.backing[self.idx:self.idx + 8] = np.frombuffer(int(w).to_bytes(8, "little"), np.uint8)


class CpRecord:
    """One execution of a cp.async instruction: a copy per thread."""
    __slots__ = ("seq", "op", "tids", "group", "dst", "size", "data", "src", "srcsize", "alive",
                 "backing", "dst_addr")


class BulkOp:
    """One asynchronous bulk operation: `perform()` reads (if not yet read) and writes; then
    `barriers` get their complete-tx, or the issuing thread's bulk group counts it done."""
    __slots__ = ("seq", "op", "thread", "read", "write", "data", "barriers", "group")

    def perform(self):
        if self.data is None:
            self.data = self.read()
        self.write(self.data)


class Waiter:
    __slots__ = ("pc", "tids", "place", "dest", "op")


class AsyncState:
    def __init__(self, b):
        n = b.N
        self.mode = getattr(b.launch, "async_mode", "wait")
        self.seq = 0
        self.copies: list[CpRecord] = []
        self.cp_committed = np.zeros(n, np.int64)     # cp.async groups committed per thread
        self.arrives: list = []                       # (seq, tids, Bars, op)
        self.bulk: dict[int, BulkOp] = {}             # seq -> operation, in issue order
        self.bulk_on: dict = {}                       # barrier key -> {seq: operation}
        self.bulk_committed = np.zeros(n, np.int64)   # bulk async-groups committed per thread
        self.waiters: dict = {}                       # barrier key -> [Waiter]
        self.phases_completed = 0                     # phase completions so far (progress)
        self.gave_up_at = -1                          # phases_completed when waits last timed out
        self.place_of: dict = {}                      # barrier key -> Place (for reports)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    @property
    def late(self) -> bool:
        return self.mode == "late"


def state(b) -> AsyncState:
    st = getattr(b, "async_state", None)
    if st is None:
        st = b.async_state = AsyncState(b)
    return st


def peek(b) -> AsyncState | None:
    return getattr(b, "async_state", None)


# ------------------------------------------------------------------------------ barrier words

def _fail(b, op, t, message, expected, place=None):
    return b.error(errors.MbarrierError, op, t, message, expected=expected, space=".shared",
                   address=None if place is None else place.address)


def barrier_word(b, op, t, place: Place):
    w = place.read()
    got = unpack(w)
    if not got[4]:
        raise _fail(b, op, t, f"mbarrier at shared address {place.address:#x} is not initialised",
                    "mbarrier.init on this address before any other mbarrier operation", place)
    return got


def update(b, op, t, place: Place, *, arrivals: int = 0, tx: int = 0, drop: int = 0) -> int:
    """Apply an expect-tx (`tx` > 0), complete-tx (`tx` < 0) and `arrivals` arrive-ons (of which
    `drop` also leave the expected count) to one barrier, completing its phase when nothing is
    pending. Returns the word before the update (the `state` an arrive returns)."""
    before = place.read()
    phase, pending, expected, count, _ = barrier_word(b, op, t, place)
    count += tx
    if abs(count) > TX_LIMIT:
        raise _fail(b, op, t, f"mbarrier tx-count overflow: {count} bytes pending in the current "
                    f"phase (the range is +-{TX_LIMIT})",
                    "expect-tx and complete-tx counts that stay within 2^20 - 1 bytes", place)
    if arrivals > pending:
        raise _fail(b, op, t, f"mbarrier phase overflow: {arrivals} arrival(s) on a phase with "
                    f"{pending} pending of {expected} expected",
                    "no more arrivals in a phase than the barrier's expected count", place)
    pending -= arrivals
    expected -= drop
    done = pending == 0 and count == 0
    if done:
        phase ^= 1
        pending = expected
    place.write(pack(phase, pending, expected, count))
    if done:
        release_waiters(b, place)
    return before


class Bars:
    """The barriers a set of threads names: one backing array (shared memory), a byte index and
    the address written, per thread."""
    __slots__ = ("backing", "idx", "addr")

    def __init__(self, backing, idx, addr):
        self.backing, self.idx, self.addr = backing, np.asarray(idx, np.intp), np.asarray(addr, np.uint64)

    def words(self) -> np.ndarray:
        return self.backing.view(np.uint64)[self.idx >> 3]

    def place(self, k: int) -> Place:
        return Place(self.backing, int(self.idx[k]), int(self.addr[k]))


def check_initialised(b, op, tids, bars: Bars, words=None) -> np.ndarray:
    w = bars.words() if words is None else words
    bad = (w & np.uint64(VALID)) == 0
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        barrier_word(b, op, int(tids[k]), bars.place(k))       # raises, naming the barrier
    return w


def _fields(words: np.ndarray):
    """(phase, pending, expected, tx) arrays of barrier words."""
    tx = ((words >> np.uint64(40)) & np.uint64((1 << 21) - 1)).astype(np.int64)
    tx = np.where(tx >= 1 << 20, tx - (1 << 21), tx)
    return ((words >> np.uint64(63)).astype(np.int64), (words & np.uint64(M20)).astype(np.int64),
            ((words >> np.uint64(20)) & np.uint64(M20)).astype(np.int64), tx)


def apply(b, op, tids, bars: Bars, arrivals, tx, drop: bool = False) -> np.ndarray:
    """`update` for many threads at once, in thread order (each thread's expect/complete-tx,
    then its arrivals): returns each thread's state token. All barriers are updated together,
    except one whose phase would complete before its last operation of the batch (or that
    overflows): that one is updated one thread at a time."""
    n = len(tids)
    arrivals = np.broadcast_to(np.asarray(arrivals, np.int64), (n,))
    tx = np.broadcast_to(np.asarray(tx, np.int64), (n,))
    words = check_initialised(b, op, tids, bars)
    W = bars.backing.view(np.uint64)
    order = np.argsort(bars.idx, kind="stable")            # by barrier, thread order within
    key = bars.idx[order]
    first = np.ones(n, bool)
    first[1:] = key[1:] != key[:-1]
    last = np.ones(n, bool)
    last[:-1] = first[1:]
    gid = np.cumsum(first) - 1                             # group of each sorted row
    starts = np.flatnonzero(first)
    arr, t = arrivals[order], tx[order]
    ca, ct = np.cumsum(arr), np.cumsum(t)
    base_a = (ca - arr)[starts][gid]                       # cumulative sums restart per barrier
    base_t = (ct - t)[starts][gid]
    phase, pending, expected, count = _fields(words[order])
    pend = pending - (ca - base_a)
    cnt = count + (ct - base_t)
    exp = expected - (ca - base_a) if drop else expected
    done = (pend == 0) & (cnt == 0)
    bad = (done & ~last) | (pend < 0) | (np.abs(cnt) > TX_LIMIT)
    slow = np.zeros(len(starts), bool)
    if bad.any():
        slow[np.unique(gid[bad])] = True
    prev_pend = pend + arr
    prev_cnt = cnt - t
    prev_exp = exp + arr if drop else expected
    tokens = np.empty(n, np.uint64)
    tokens[order] = _pack_many(phase, prev_pend, np.broadcast_to(prev_exp, (n,)), prev_cnt)
    fast_last = last & ~slow[gid]
    rows = np.flatnonzero(fast_last)
    if len(rows):
        exp_last = np.broadcast_to(exp, (n,))[rows]
        fin = done[rows]
        new = np.where(fin, _pack_many(phase[rows] ^ 1, exp_last, exp_last, np.zeros(len(rows), np.int64)),
                       _pack_many(phase[rows], pend[rows], exp_last, cnt[rows]))
        W[key[rows] >> 3] = new
        for r in rows[fin]:
            release_waiters(b, bars.place(int(order[r])))
    for g in np.flatnonzero(slow):                         # phases turn over inside the batch
        for r in order[gid == g]:
            tokens[r] = update(b, op, int(tids[r]), bars.place(int(r)), arrivals=int(arrivals[r]),
                               tx=int(tx[r]), drop=int(arrivals[r]) if drop else 0)
    return tokens


def _pack_many(phase, pending, expected, count) -> np.ndarray:
    return ((np.asarray(phase, np.uint64) << np.uint64(63)) | np.uint64(VALID)
            | ((np.asarray(count, np.int64) & ((1 << 21) - 1)).astype(np.uint64) << np.uint64(40))
            | (np.asarray(expected, np.uint64) << np.uint64(20)) | np.asarray(pending, np.uint64))


def release_waiters(b, place: Place, completed: bool = True):
    """Wake the threads waiting on a barrier: its phase completed (the wait returns true), or,
    with `completed` False, their wait timed out (false)."""
    st = peek(b)
    if st is None:
        return
    if completed:
        st.phases_completed += 1
    ws = st.waiters.pop(place.key, None)
    for w in ws or ():
        idx = w.tids if len(w.tids) != b.N else None
        w.dest(b, idx, np.full(len(w.tids), completed, bool))
        b.schedule(w.pc + 1, idx)


def park(b, op, tids, place: Place, dest):
    """Threads wait in try_wait/test_wait until the barrier's current phase completes."""
    st = state(b)
    w = Waiter()
    w.pc, w.tids, w.place, w.dest, w.op = op.pc, tids, place, dest, op
    st.waiters.setdefault(place.key, []).append(w)
    st.place_of[place.key] = place


# ------------------------------------------------------------------------------ completion

def _write_copy_rows(rec: CpRecord, rows: np.ndarray | None, b):
    """Land the copies `rows` of a record (None: all of them)."""
    # late mode reads the sources only now
    if rec.data is None:
        data = READ_SOURCE(b, rec, np.arange(len(rec.alive)) if rows is None else rows)
    else:
        data = rec.data if rows is None else rec.data[rows]
    dst = rec.dst if rows is None else rec.dst[rows]
    size = rec.size
    backing = rec.backing
    # cp.async destinations are cp-size aligned (checked at issue), so each copy is one whole
    # row of the shared array viewed (rows, size): one index per copy, not one per byte
    if len(backing) % size == 0 and len(dst) and not int(np.bitwise_or.reduce(dst)) & (size - 1):
        backing.reshape(-1, size)[dst >> (size.bit_length() - 1)] = data
    else:
        backing[dst[:, None] + np.arange(size)] = data
    if rows is None:
        rec.alive[:] = False
    else:
        rec.alive[rows] = False


READ_SOURCE = None   # set by sem_async: (b, rec, rows) -> (n, size) bytes, for late reads


def complete_copies(b, threads: np.ndarray, *, group_below: np.ndarray | None = None,
                    seq_below: int | None = None) -> None:
    """Complete pending cp.async copies of `threads` (sorted): those whose group number is below
    `group_below[t]`, or issued before `seq_below`, or all."""
    st = peek(b)
    if st is None or not st.copies:
        return
    keep = []
    waiting = None                  # which threads wait here (built once, when needed)
    everyone = len(threads) == b.N
    for rec in st.copies:
        if seq_below is not None and rec.seq >= seq_below:
            keep.append(rec)
            continue
        sel = rec.alive.copy()
        if not everyone:
            if waiting is None:
                waiting = np.zeros(b.N, bool)
                waiting[threads] = True
            sel &= waiting[rec.tids]
        if group_below is not None:
            sel &= rec.group < group_below[rec.tids]
        if sel.all():
            _write_copy_rows(rec, None, b)
            continue
        rows = np.flatnonzero(sel)
        if len(rows):
            _write_copy_rows(rec, rows, b)
        if rec.alive.any():
            keep.append(rec)
    st.copies = keep


def fire_arrives(b, key=None) -> bool:
    """Fire pending cp.async.mbarrier.arrive arrive-ons (those on barrier `key`, or all): the
    thread's earlier copies complete first."""
    st = peek(b)
    if st is None or not st.arrives:
        return False
    fired, keep = False, []
    for entry in st.arrives:
        seq, tids, bars, op = entry
        if key is not None:
            hit = (bars.idx == key[1]) & (id(bars.backing) == key[0])
            if not hit.any():
                keep.append(entry)
                continue
            if not hit.all():                    # fire this barrier's arrivals, keep the others
                keep.append((seq, tids[~hit], Bars(bars.backing, bars.idx[~hit], bars.addr[~hit]), op))
                tids, bars = tids[hit], Bars(bars.backing, bars.idx[hit], bars.addr[hit])
        complete_copies(b, tids, seq_below=seq)
        apply(b, op, tids, bars, 1, 0)
        fired = True
    st.arrives = keep
    return fired


def add_bulk(st: AsyncState, bop: BulkOp) -> None:
    st.bulk[bop.seq] = bop
    for place, _ in bop.barriers:
        st.bulk_on.setdefault(place.key, {})[bop.seq] = bop


def complete_bulk(b, *, key=None, thread=None, group_below=None) -> bool:
    """Complete pending bulk operations: those signalling barrier `key`, or those of `thread`
    in groups below `group_below`, or all; in issue order."""
    st = peek(b)
    if st is None or not st.bulk:
        return False
    if key is not None:
        todo = list(st.bulk_on.get(key, {}).values())
    elif thread is not None:
        todo = [x for x in st.bulk.values() if x.thread == thread and x.group is not None
                and x.group < group_below]
    else:
        todo = list(st.bulk.values())
    todo.sort(key=lambda x: x.seq)
    for bop in todo:
        st.bulk.pop(bop.seq, None)
        for place, _ in bop.barriers:
            pending = st.bulk_on.get(place.key)
            if pending is not None:
                pending.pop(bop.seq, None)
                if not pending:
                    del st.bulk_on[place.key]
    for bop in todo:
        bop.perform()
        for place, nbytes in bop.barriers:
            update(b, bop.op, bop.thread, place, tx=-nbytes)
    return bool(todo)


def settle_barrier(b, key) -> bool:
    """Complete everything in flight that signals barrier `key` (a wait on it needs them)."""
    a = fire_arrives(b, key)
    c = complete_bulk(b, key=key)
    return a or c


def complete_everything(b) -> bool:
    st = peek(b)
    if st is None:
        return False
    progressed = fire_arrives(b)
    progressed |= complete_bulk(b)
    if st.copies:
        complete_copies(b, np.arange(b.N))
        progressed = True
    return progressed


@stall_resolver(order=-1)
def _async_on_stall(b) -> bool:
    """Nothing can run: the copies in flight finish (the hardware finishes them eventually),
    which may complete barrier phases and wake their waiters. If that wakes no one, the waits
    time out once (test_wait and try_wait return false, as the ISA lets them), so a thread that
    does other work meanwhile can go on; a second stall with no phase completed in between is
    the deadlock `_mbarrier_deadlock` reports."""
    st = peek(b)
    if st is None:
        return False
    before = sum(len(v) for v in st.waiters.values())
    progressed = complete_everything(b)
    after = sum(len(v) for v in st.waiters.values())
    if progressed and (after < before or bool(b.groups)):
        return True
    if after and st.phases_completed > st.gave_up_at:
        st.gave_up_at = st.phases_completed
        for key in [k for k, v in st.waiters.items() if v]:
            release_waiters(b, st.place_of[key], completed=False)
        return True
    return False


@stall_resolver(order=5)
def _mbarrier_deadlock(b) -> bool:
    st = peek(b)
    if st is None or not any(st.waiters.values()):
        return False
    key, ws = next((k, v) for k, v in st.waiters.items() if v)
    w = ws[0]
    place = st.place_of[key]
    phase, pending, expected, tx, _ = unpack(place.read())
    n = sum(len(x.tids) for x in ws)
    th, cta = b.coords(int(w.tids[0]))
    raise b.error(errors.MbarrierError, w.op, int(w.tids[0]),
                  f"mbarrier deadlock: {n} thread(s) wait for phase {phase} of the mbarrier at "
                  f"shared address {place.address:#x} (CTA {cta}), which can never complete: "
                  f"{pending} of {expected} arrivals and {tx} transaction bytes still pending, "
                  f"and no thread can run",
                  expected="the arrivals and transaction bytes the phase expects "
                           "(mbarrier.init count, expect_tx / complete_tx)",
                  space=".shared", address=place.address, others=n - 1)


# ------------------------------------------------------------------------------ thread exit

@on_thread_exit
def on_exit(b, t: np.ndarray) -> None:
    """A thread leaving with cp.async copies not waited for is an error; its bulk operations
    finish (the TMA unit completes them after the CTA moves on)."""
    st = peek(b)
    if st is None:
        return
    for rec in st.copies:
        sel = rec.alive & np.isin(rec.tids, t)
        if sel.any():
            r = int(np.flatnonzero(sel)[0])
            tid = int(rec.tids[r])
            committed = rec.group[r] < st.cp_committed[tid]
            why = ("its group was committed but no cp.async.wait_group / cp.async.wait_all "
                   "waited for it" if committed else "it was never committed "
                   "(cp.async.commit_group) nor waited for")
            raise b.error(errors.AsyncCopyError, rec.op, tid,
                          f"thread exits with a cp.async copy to shared address "
                          f"{int(rec.dst_addr[r]):#x} still in flight: {why}",
                          expected="cp.async.wait_group 0 or cp.async.wait_all before the thread "
                                   "exits", space=".shared", address=int(rec.dst_addr[r]),
                          others=int(sel.sum()) - 1)
    if st.bulk:
        leaving = set(t.tolist())
        for bop in [x for x in st.bulk.values() if x.thread in leaving and x.group is not None]:
            del st.bulk[bop.seq]
            bop.perform()
