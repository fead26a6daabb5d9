import time

import torch
import torchvision

m = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
opt = torch.optim.SGD(m.parameters(), lr=0.1); lossf = torch.nn.CrossEntropyLoss()
x = torch.rand(256,3,224,224,device="cuda").to(memory_format=torch.channels_last); y = torch.randint(0,1000,(256,),device="cuda")
for prec in ("tf32","bf16","fp32"):
    torch.backends.cuda.matmul.allow_tf32 = prec=="tf32"; torch.backends.cudnn.allow_tf32 = prec=="tf32"
    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=prec=="bf16"):
            loss = lossf(m(x), y)
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    for _ in range(10): step()
    torch.cuda.synchronize(); t=time.perf_counter()
    for _ in range(30): step()
    torch.cuda.synchronize(); print(prec, round(256*30/(time.perf_counter()-t)), "img/s", flush=True)
print(torch.__version__, torchvision.__version__)
