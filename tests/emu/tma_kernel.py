"""The end of a one-box tensor-copy test kernel, shared by the tensor-copy tests: arm the
barrier `bar` (`%r1`) for `nbytes`, issue the copy into `buf` (`%r2`), wait for the barrier's
phase 0, and store the box to the global pointer in `%rd9` with a bulk copy."""


def copy_box_and_store(copy: str, nbytes: int) -> str:
    return f"""mov.u32 %r1, bar;
mov.u32 %r2, buf;
mbarrier.init.shared::cta.b64 [%r1], 1;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r1], {nbytes};
{copy};
LOOP:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
@!%p1 bra LOOP;
cp.async.bulk.global.shared::cta.bulk_group [%rd9], [%r2], {nbytes};
cp.async.bulk.commit_group;
cp.async.bulk.wait_group 0;
ret;"""
