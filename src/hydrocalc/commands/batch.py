"""``hydrocalc batch SITES...``: analyse many site files and sweep scenarios on Dask.

Thin layer: parse the options, call :func:`hydrocalc.batch.run_batch`, print its summary.
"""

from __future__ import annotations

import click

from hydrocalc.commands._output import check_dir

#: Exit status of an interrupted batch (128 + SIGINT, the shell's convention).
EXIT_INTERRUPTED = 130


@click.command("batch")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports/batch",
              show_default=True,
              help="Folder for summary.csv, summary.parquet and batch.json (written atomically).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="dask.distributed scheduler address (tcp://host:8786), or processes "
                   "(default), threads or synchronous for a local run.")
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="Local worker processes/threads (default: number of CPUs).")
@click.option("--chunk-size", type=click.IntRange(1, 100_000), default=None,
              help="Sweep scenarios per task (default: at most 250, about four tasks per "
                   "worker).")
@click.option("--memory-mb", type=click.FloatRange(16, None), default=None,
              help="Memory target of the arrays of one block of sweep scenarios analysed in "
                   "full [MB] (default: 20, keeping a worker under 300 MB; 1024 without "
                   "numba).")
@click.option("--storm", "storms", multiple=True, metavar="NAME",
              help="Analyse only this storm (repeatable; default: all).")
@click.option("--worker-wait", "worker_wait_s", type=click.FloatRange(0, None), default=60.0,
              show_default=True, metavar="SECONDS",
              help="With --scheduler ADDRESS: how long to wait for a worker (at the start, or "
                   "after every worker left) before failing.")
@click.option("--full-analysis", is_flag=True,
              help="Analyse every sweep scenario in full (as `hydrocalc run` does) instead of "
                   "the summary array path; the rows are the same.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
def batch(ctx, inputs, out_dir, scheduler, workers, chunk_size, memory_mb, storms,
          worker_wait_s, full_analysis, quiet):
    """Analyse every site file, and every scenario of every sweep file, in INPUTS.

    A sweep file (base = "site.toml" plus [[vary]] entries; see docs/batch.md) expands
    into its scenarios. One summary row per input or scenario, design point and storm;
    a failing input is a row with its error and the others continue. Exit 0 when all
    succeed, 1 when any failed (the summary is written either way, batch.json then says
    "complete": false). Lost workers' tasks are re-run; an interrupted batch (Ctrl-C,
    SIGTERM) stops every worker process it started, writes the partial summary (unfinished
    rows status "interrupted") and exits 130.
    """
    from hydrocalc.batch import BatchInterrupted, run_batch

    check_dir(out_dir, "--out")
    try:
        result = run_batch(inputs, out_dir=out_dir, scheduler=scheduler, workers=workers,
                           chunk_size=chunk_size, storms=list(storms) or None,
                           progress=not quiet, task_memory_mb=memory_mb,
                           worker_wait_s=worker_wait_s, summary_arrays=not full_analysis)
    except BatchInterrupted as exc:
        r = exc.result
        click.echo(f"error: batch {exc}: {r.n_interrupted} of {r.n_scenarios} run(s) not "
                   f"completed; the partial summary (unfinished rows status "
                   f"\"interrupted\", batch.json \"interrupted\": true) is in {out_dir}",
                   err=True)
        ctx.exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        click.echo(f"error: batch interrupted before any summary was written; {out_dir} is "
                   "unchanged", err=True)
        ctx.exit(EXIT_INTERRUPTED)
    click.echo(result.describe())
    if not result.ok:
        errors = result.errors()
        for _, row in errors.head(10).iterrows():
            where = row["source"] + (f" scenario {row['scenario']}" if row["scenario"] else "")
            click.echo(f"error: {where}: {row['error']}", err=True)
        if len(errors) > 10:
            click.echo(f"error: ... and {len(errors) - 10} more failed rows in the summary",
                       err=True)
        ctx.exit(1)


COMMANDS = [batch]
