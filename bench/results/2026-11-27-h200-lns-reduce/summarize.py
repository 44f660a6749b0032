"""Summarises `sigpu --json check` outputs (one file per run seed, seedN.json in the folder given)
into one JSON object: seeds run, per check how many seeds passed, and every failure with its
note or error. A seed whose file is missing or not JSON counts as failed (`unreadable`)."""
import json
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])
checks, failures, unreadable, seeds, device = {}, [], [], [], None
for path in sorted(folder.glob("seed*.json"), key=lambda p: int(p.stem[4:])):
    seed = int(path.stem[4:])
    seeds.append(seed)
    try:
        summary = json.loads(path.read_text())
        outcomes = summary["checks"]
        device = summary["device"]
    except (ValueError, KeyError, TypeError):
        err = folder / f"seed{seed}.err"
        unreadable.append({"seed": seed, "stderr": err.read_text()[-500:] if err.exists() else ""})
        continue
    for c in outcomes:
        entry = checks.setdefault(c["name"], {"passed": 0, "failed": 0, "seconds": 0.0})
        entry["seconds"] = round(entry["seconds"] + c["seconds"], 3)
        if c["passed"]:
            entry["passed"] += 1
        else:
            entry["failed"] += 1
            report = c.get("report") or {}
            failures.append({
                "seed": seed,
                "check": c["name"],
                "check_seed": c["seed"],
                "mismatches": report.get("mismatches"),
                "note": report.get("note") or c.get("error"),
            })
print(json.dumps({
    "seeds": len(seeds),
    "device": device,
    "all_passed": not failures and not unreadable and bool(seeds),
    "checks": checks,
    "failures": failures,
    "unreadable": unreadable,
}, indent=1))
