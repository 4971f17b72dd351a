#!/usr/bin/env python3
"""PPO on CartPole: rollouts of --steps environment steps with a shared-trunk actor-critic,
generalised advantage estimation (gamma 0.99, lambda 0.95), then 4 passes of minibatches of 64
with the clipped policy loss (epsilon 0.2), the clipped value loss and an entropy bonus, Adam.
One rollout and its update make an epoch. Phases (allocab): import, setup, then one 'epoch' per
--epochs."""
from common import arguments, checksum, deterministic, phase

args = arguments(__doc__, epochs=8, steps=512)
with phase.phase("import"):
    import torch
    import torch.nn.functional as F

    from cartpole import CartPole

with phase.phase("setup"):
    deterministic(torch, args.seed)
    env = CartPole(args.seed)

    class ActorCritic(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.Tanh(),
                                             torch.nn.Linear(64, 64), torch.nn.Tanh())
            self.pi, self.v = torch.nn.Linear(64, 2), torch.nn.Linear(64, 1)

        def forward(self, x):
            h = self.trunk(x)
            return self.pi(h), self.v(h).squeeze(-1)

    model = ActorCritic()
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    gamma, lam, clip, passes, minibatch = 0.99, 0.95, 0.2, 4, 64
    state, episode_return, returns = env.reset(), 0.0, []


def rollout():
    global state, episode_return
    obs, acts, logps, vals, rews, alive = [], [], [], [], [], []
    with torch.no_grad():
        for _ in range(args.steps):
            x = torch.tensor(state)
            logits, v = model(x)
            dist = torch.distributions.Categorical(logits=logits)
            a = dist.sample()
            nxt, r, done = env.step(int(a))
            obs.append(x)
            acts.append(a)
            logps.append(dist.log_prob(a))
            vals.append(v)
            rews.append(r)
            alive.append(0.0 if done else 1.0)
            episode_return += r
            state = nxt
            if done:
                returns.append(episode_return)
                state, episode_return = env.reset(), 0.0
        _, last = model(torch.tensor(state))
    return (torch.stack(obs), torch.stack(acts), torch.stack(logps), torch.stack(vals),
            torch.tensor(rews), torch.tensor(alive), last)


def gae(vals, rews, alive, last):
    adv, running = torch.zeros_like(rews), 0.0
    for t in reversed(range(len(rews))):
        nxt = last if t == len(rews) - 1 else vals[t + 1]
        delta = rews[t] + gamma * nxt * alive[t] - vals[t]
        running = delta + gamma * lam * alive[t] * running
        adv[t] = running
    return adv, adv + vals


for epoch in range(args.epochs):
    with phase.phase("epoch"):
        obs, acts, old_logp, old_v, rews, alive, last = rollout()
        adv, ret = gae(old_v, rews, alive, last)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        for _ in range(passes):
            for idx in torch.randperm(args.steps).split(minibatch):
                logits, v = model(obs[idx])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = torch.exp(dist.log_prob(acts[idx]) - old_logp[idx])
                pg = -torch.min(ratio * adv[idx],
                                ratio.clamp(1 - clip, 1 + clip) * adv[idx]).mean()
                v_clipped = old_v[idx] + (v - old_v[idx]).clamp(-clip, clip)
                vloss = torch.max(F.mse_loss(v, ret[idx], reduction="none"),
                                  F.mse_loss(v_clipped, ret[idx], reduction="none")).mean()
                loss = pg + 0.5 * vloss - 0.01 * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                opt.step()

checksum(torch, model, sum(returns))
