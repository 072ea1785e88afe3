"""A test helper: the same run on one numba thread and on two, for the "rows depend only on
(seed, deal_id)" tests."""
import numba


def on_one_and_two_threads(one_thread, two_threads):
    """(``one_thread()`` run on one numba thread, ``two_threads()`` on two), the thread count
    restored afterwards."""
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = one_thread()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = two_threads()
    finally:
        numba.set_num_threads(saved)
    return one, two
