"""CartPole dynamics (Barto, Sutton and Anderson 1983, as in OpenAI Gym's CartPole-v1), in plain
Python so that the examples need nothing beyond Debian's python3-torch. Deterministic from its
seed."""
import math
import random


class CartPole:
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    x_limit, theta_limit, max_steps = 2.4, 12 * 2 * math.pi / 360, 500

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.reset()

    def reset(self):
        self.state = [self.rng.uniform(-0.05, 0.05) for _ in range(4)]
        self.steps = 0
        return list(self.state)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masscart + self.masspole
        polemass_length = self.masspole * self.length
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot * theta_dot * sin) / total_mass
        theta_acc = (self.gravity * sin - cos * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * cos * cos / total_mass))
        x_acc = temp - polemass_length * theta_acc * cos / total_mass
        x += self.tau * x_dot
        x_dot += self.tau * x_acc
        theta += self.tau * theta_dot
        theta_dot += self.tau * theta_acc
        self.state = [x, x_dot, theta, theta_dot]
        self.steps += 1
        done = (abs(x) > self.x_limit or abs(theta) > self.theta_limit
                or self.steps >= self.max_steps)
        return list(self.state), 1.0, done
