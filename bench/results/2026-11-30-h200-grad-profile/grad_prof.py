import torch, scipy.signal as ss, sigpu, sys
from torch.profiler import profile, ProfilerActivity
sos = ss.butter(8, 0.05, output="sos"); b, a = ss.butter(2, 0.05)
for shape in [(4096, 16384), (1, 1 << 28)]:
    x0 = torch.randn(*shape, device="cuda"); g = torch.randn_like(x0)
    for filt in ("lfilter", "sosfilt"):
        for coefs in (False, True):
            x = x0.clone().requires_grad_()
            cs = [torch.tensor(c, device="cuda").requires_grad_(coefs) for c in (sos, b, a)]
            def step():
                x.grad = None
                y = sigpu.sosfilt(cs[0], x) if filt == "sosfilt" else sigpu.lfilter(cs[1], cs[2], x)
                y.backward(g)
            for _ in range(3): step()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
                for _ in range(3): step()
                torch.cuda.synchronize()
            print(f"===== {shape} {filt} coefs={coefs}")
            print(p.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=60))
            sys.stdout.flush()
