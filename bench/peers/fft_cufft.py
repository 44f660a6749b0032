"""cuFFT peer for `sigpu clns fft`: batched complex64 FFTs through CuPy and torch, timed with
CUDA events (warm-up, median of runs). Usage: fft_cufft.py N BATCH [N BATCH ...]; prints JSON."""
import json
import statistics
import sys


def time_it(fn, sync_event, runs=20):
    for _ in range(3):
        fn()
    times = []
    for _ in range(runs):
        start, end = sync_event(), sync_event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start_end_ms(start, end))
    return statistics.median(times)


def start_end_ms(start, end):
    if hasattr(start, "elapsed_time"):  # torch.cuda.Event
        return start.elapsed_time(end)
    import cupy
    return cupy.cuda.get_elapsed_time(start, end)


def main(args):
    pairs = [(int(args[i]), int(args[i + 1])) for i in range(0, len(args), 2)]
    rows = []
    try:
        import cupy
        dev = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        for n, batch in pairs:
            x = (cupy.random.standard_normal((batch, n)) + 1j * cupy.random.standard_normal((batch, n))).astype(cupy.complex64)
            ms = time_it(lambda: cupy.fft.fft(x, axis=-1), cupy.cuda.Event)
            rows.append({"peer": f"cupy {cupy.__version__} cufft complex64", "device": dev, "n": n, "batch": batch,
                         "median_ms": ms, "transforms_per_s": batch / (ms * 1e-3)})
    except Exception as e:  # noqa: BLE001 - report, keep going with torch
        rows.append({"peer": "cupy", "error": str(e)})
    try:
        import torch
        dev = torch.cuda.get_device_name(0)
        for n, batch in pairs:
            x = torch.randn(batch, n, dtype=torch.complex64, device="cuda")
            ms = time_it(lambda: torch.fft.fft(x, dim=-1), lambda: torch.cuda.Event(enable_timing=True))
            rows.append({"peer": f"torch {torch.__version__} fft complex64", "device": dev, "n": n, "batch": batch,
                         "median_ms": ms, "transforms_per_s": batch / (ms * 1e-3)})
    except Exception as e:  # noqa: BLE001
        rows.append({"peer": "torch", "error": str(e)})
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
