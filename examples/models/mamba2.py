#!/usr/bin/env python3
"""A MAMBA-2-like selective state-space language model (Dao and Gu 2024, reduced): each block
projects its input to x, a gate z, input-dependent B, C and a step size dt per head, runs a short
causal convolution, then the selective scan written out in PyTorch, h_t = exp(dt_t A) h_{t-1} +
dt_t B_t x_t and y_t = C_t h_t + D x_t, one time step after another (a scalar A per head, as in
MAMBA-2), gated by silu(z) and normalised. Two blocks, trained with AdamW on next-token
prediction over a synthetic grammar of 64 tokens; --steps batches of 8 sequences of 48 tokens per
epoch. Phases (allocab): import, setup, then one 'epoch' per --epochs."""
from common import arguments, checksum, deterministic, phase

args = arguments(__doc__, epochs=8, steps=3)
with phase.phase("import"):
    import torch
    import torch.nn.functional as F

VOCAB, D, HEADS, STATE, LAYERS, SEQ, BATCH, CONV = 64, 64, 4, 16, 2, 48, 8, 4


class SSMBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = D // HEADS
        self.inp = torch.nn.Linear(D, 2 * D + 2 * STATE + HEADS)
        self.conv = torch.nn.Conv1d(D, D, CONV, groups=D, padding=CONV - 1)
        self.log_a = torch.nn.Parameter(torch.log(torch.linspace(1.0, 8.0, HEADS)))
        self.dt_bias = torch.nn.Parameter(torch.full((HEADS,), -2.0))
        self.d = torch.nn.Parameter(torch.ones(HEADS))
        self.norm, self.out = torch.nn.LayerNorm(D), torch.nn.Linear(D, D)

    def scan(self, x, dt, b, c):
        """x (B, L, H, P), dt (B, L, H), b and c (B, L, N): the selective scan, step by step."""
        a = -torch.exp(self.log_a)
        h = x.new_zeros(x.shape[0], HEADS, self.p, STATE)
        ys = []
        for t in range(x.shape[1]):
            decay = torch.exp(dt[:, t] * a).view(-1, HEADS, 1, 1)
            inject = (dt[:, t].view(-1, HEADS, 1, 1) * x[:, t].unsqueeze(-1)
                      * b[:, t].view(-1, 1, 1, STATE))
            h = decay * h + inject
            ys.append((h * c[:, t].view(-1, 1, 1, STATE)).sum(-1))
        return torch.stack(ys, 1) + self.d.view(1, 1, HEADS, 1) * x

    def forward(self, u):
        n, length, _ = u.shape
        x, z, b, c, dt = self.inp(u).split([D, D, STATE, STATE, HEADS], -1)
        x = F.silu(self.conv(x.transpose(1, 2))[..., :length].transpose(1, 2))
        dt = F.softplus(dt + self.dt_bias)
        y = self.scan(x.view(n, length, HEADS, self.p), dt, b, c).reshape(n, length, D)
        return u + self.out(self.norm(y * F.silu(z)))


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, D)
        self.blocks = torch.nn.ModuleList(SSMBlock() for _ in range(LAYERS))
        self.head = torch.nn.Linear(D, VOCAB)

    def forward(self, tokens):
        h = self.emb(tokens)
        for blk in self.blocks:
            h = blk(h)
        return self.head(h)


def batch(g):
    """Sequences of a fixed random grammar: each token picks its successor among 4."""
    start = torch.randint(VOCAB, (BATCH,), generator=g)
    choice = torch.randint(4, (BATCH, SEQ), generator=g)
    seq = [start]
    for t in range(1, SEQ + 1):
        seq.append(successors[seq[-1], choice[:, t - 1]])
    return torch.stack(seq, 1)


with phase.phase("setup"):
    deterministic(torch, args.seed)
    g = torch.Generator().manual_seed(args.seed)
    successors = torch.randint(VOCAB, (VOCAB, 4), generator=g)
    model = Model()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    total_loss = 0.0

for epoch in range(args.epochs):
    with phase.phase("epoch"):
        for _ in range(args.steps):
            tokens = batch(g)
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += float(loss)

checksum(torch, model, total_loss)
