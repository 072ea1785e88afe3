"""The chunk files' codec, chosen by measurement (issue 48): file size and write speed of a
dataset chunk under each Parquet compression, written as the run driver writes it
(``driver.write_parquet``: polars, no statistics, the chunk's key-value metadata).

    python scripts/parquet_codecs.py [--deals 1000000] [--chunk 250000] [--repeat 3]
    python scripts/parquet_codecs.py --strategy simple            # a full-rules dataset

The rows are those of the bench's end-to-end command (random play, normal forced, no calls)
unless --strategy/--rules say otherwise. Prints, per codec and level: MB per million rows,
the write's wall time and CPU time (all threads of the process, time.process_time) per
million rows, each the best of --repeat, and the read time per million rows. The machine may
be shared: compare the rows of one run, not runs.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

CODECS = (("zstd", 9), ("zstd", 3), ("zstd", 1), ("lz4", None), ("snappy", None), ("uncompressed", None))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=250_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--rules", default="ddv")
    args = ap.parse_args()
    import polars as pl

    import dokosim
    from dokosim.run.dataset import frame_from_rows
    from dokosim.run.driver import parquet_metadata
    from dokosim.run.simulator import Simulator, make_plan

    forced = dict(contract="normal", calls=False) if args.strategy == "random" and args.rules == "ddv" else {}
    plan = make_plan(args.deals, seed=1, rules=args.rules, strategy=args.strategy, chunk_size=args.chunk, **forced)
    sim = Simulator(plan)
    names = [s.name for s in plan.strategies]
    frames = [frame_from_rows(sim.rows(first, min(args.chunk, args.deals - first))[0].copy(), names)
              for first in range(0, args.deals, args.chunk)]
    metadata = parquet_metadata(plan.manifest())
    per_m = 1e6 / args.deals
    print(f"dokosim {dokosim.__version__}, polars {pl.__version__}; {args.deals:,} rows ({args.strategy}, "
          f"{args.rules}{', normal forced, no calls' if forced else ''}) in chunks of {args.chunk:,}; "
          f"in memory {sum(f.estimated_size() for f in frames) * per_m / 1e6:.1f} MB per million rows; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"{'codec':14} {'MB/M rows':>10} {'write s/M rows':>15} {'write CPU s/M':>14} {'read s/M rows':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / f"part-{i:06d}.parquet" for i in range(len(frames))]
        for codec, level in CODECS:
            wall = cpu = read = float("inf")
            for _ in range(args.repeat):
                t, c = time.perf_counter(), time.process_time()
                for frame, path in zip(frames, paths):
                    frame.write_parquet(path, compression=codec, compression_level=level, statistics=False,
                                        metadata=metadata)
                wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
                t = time.perf_counter()
                for path in paths:
                    pl.read_parquet(path)
                read = min(read, time.perf_counter() - t)
            size = sum(p.stat().st_size for p in paths)
            label = codec + (f" {level}" if level is not None else "")
            print(f"{label:14} {size * per_m / 1e6:10.2f} {wall * per_m:15.3f} {cpu * per_m:14.3f} "
                  f"{read * per_m:14.3f}")


if __name__ == "__main__":
    main()
