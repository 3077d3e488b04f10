"""Writes each bash `run:` step of GitHub workflow and action files to FOLDER as a script.

Usage: run_steps.py FOLDER FILE...   (a step is saved as FILESTEM-ID.sh, or FILESTEM-N.sh
without an id). `${{ ... }}` expressions become the word EXPR, so shellcheck can read the
scripts, and .ci/run runs the Action's check step from its file.
"""

import pathlib
import re
import sys

import yaml


def steps(doc):
    """The steps of an action (runs.steps) or of every job of a workflow."""
    yield from doc.get("runs", {}).get("steps", [])
    for job in doc.get("jobs", {}).values():
        yield from job.get("steps", [])


def main():
    out = pathlib.Path(sys.argv[1])
    for name in sys.argv[2:]:
        with open(name, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        for n, step in enumerate(steps(doc)):
            if "run" in step and step.get("shell", "bash") == "bash":
                text = re.sub(r"\$\{\{.*?\}\}", "EXPR", step["run"])
                script = out / f"{pathlib.Path(name).stem}-{step.get('id', n)}.sh"
                script.write_text("#!/usr/bin/env bash\n" + text, encoding="utf-8")


if __name__ == "__main__":
    main()
