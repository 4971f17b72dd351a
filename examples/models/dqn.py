#!/usr/bin/env python3
"""DQN on CartPole: epsilon-greedy rollouts, a replay buffer, an MLP Q-network trained with Adam
on Huber TD errors, and a target network synced every 100 steps. One gradient step per
environment step. Phases (allocab): import, setup, then one 'epoch' per --epochs."""
from common import arguments, checksum, deterministic, phase

args = arguments(__doc__, epochs=8, steps=250)
with phase.phase("import"):
    import random

    import torch
    import torch.nn.functional as F

    from cartpole import CartPole

with phase.phase("setup"):
    deterministic(torch, args.seed)
    rng = random.Random(args.seed)
    env = CartPole(args.seed)

    def mlp():
        return torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.ReLU(),
                                   torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                   torch.nn.Linear(64, 2))

    qnet, target = mlp(), mlp()
    target.load_state_dict(qnet.state_dict())
    opt = torch.optim.Adam(qnet.parameters(), lr=1e-3)
    replay, capacity, batch, gamma = [], 10000, 64, 0.99
    state, episode_return, returns, step = env.reset(), 0.0, [], 0

for epoch in range(args.epochs):
    with phase.phase("epoch"):
        for _ in range(args.steps):
            eps = max(0.05, 1.0 - step / 2000)
            if rng.random() < eps:
                action = rng.randrange(2)
            else:
                with torch.no_grad():
                    action = int(qnet(torch.tensor([state])).argmax())
            nxt, reward, done = env.step(action)
            replay.append((state, action, reward, nxt, 0.0 if done else 1.0))
            if len(replay) > capacity:
                replay.pop(0)
            episode_return += reward
            state = nxt
            if done:
                returns.append(episode_return)
                state, episode_return = env.reset(), 0.0
            if len(replay) >= batch:
                s, a, r, s2, alive = zip(*rng.sample(replay, batch))
                s, s2 = torch.tensor(s), torch.tensor(s2)
                a = torch.tensor(a).unsqueeze(1)
                r, alive = torch.tensor(r), torch.tensor(alive)
                q = qnet(s).gather(1, a).squeeze(1)
                with torch.no_grad():
                    y = r + gamma * alive * target(s2).max(1).values
                loss = F.smooth_l1_loss(q, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            step += 1
            if step % 100 == 0:
                target.load_state_dict(qnet.state_dict())

checksum(torch, qnet, sum(returns))
