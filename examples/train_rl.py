"""Train a small Palace agent with a masked-action policy gradient in plain numpy, then
measure it with ``palace match``'s machinery against ``random`` and ``greedy``.

    pip install '.[rl]'
    python examples/train_rl.py                      # about two minutes on one core
    python examples/train_rl.py --episodes 500 --eval-starts 20   # a quick look
    palace match policy:path=palace_policy.npz greedy --starts 100   # the saved policy

The learner plays one seat of the Gymnasium environment ``Palace-v0`` (a random seat each
game) against ``palace match`` agents; the reward is 1 minus its loss share at the end.
The policy (:class:`palace_solver.interop.policy.MLPPolicy`: one tanh layer, a softmax over
the legal actions) is trained by REINFORCE: every decision of a game is pushed towards the
game's outcome minus a baseline (the running mean outcome against that opponent), a batch
of games per Adam step, with a small entropy bonus so the policy keeps exploring. The first
part of the games is played against ``random``, the rest against ``greedy``
(``--opponents``). It is a way in, not a research result: see docs/rl.md for the numbers.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from palace_solver.interop.gymnasium import PalaceEnv
from palace_solver.interop.policy import MLPPolicy, masked_softmax
from palace_solver.jobs.match import format_summary, run_match


class Adam:
    """Adam on a list of arrays, maximising (the arrays move along the gradient)."""

    def __init__(self, params, lr: float, b1: float = 0.9, b2: float = 0.999):
        self.params, self.lr, self.b1, self.b2, self.t = params, lr, b1, b2, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            mh = m / (1 - self.b1 ** self.t)
            vh = v / (1 - self.b2 ** self.t)
            p += self.lr * mh / (np.sqrt(vh) + 1e-8)


def play_episode(env: PalaceEnv, policy: MLPPolicy, rng, seed: int):
    """One game: the learner's scaled observations, masks, actions and their
    probabilities at its decisions (forced moves left out: they teach nothing), and its
    reward at the end."""
    obs, _ = env.reset(seed=seed)
    xs, masks, acts, probs = [], [], [], []
    while True:
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            a = int(legal[0])
        else:
            x = policy.scale(obs["observation"])
            logits, _ = policy.forward(x[None, :])
            p = masked_softmax(logits, mask[None, :])[0]
            a = int(rng.choice(len(p), p=p))
            xs.append(x)
            masks.append(mask)
            acts.append(a)
            probs.append(p[a])
        obs, reward, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            return xs, masks, acts, probs, reward


def backprop(net: MLPPolicy, hidden, g):
    """The gradients of the layers given d(objective)/d(output) ``g`` (batch, outputs)."""
    grads = []
    for i in range(len(net.layers) - 1, -1, -1):
        w, _ = net.layers[i]
        grads[:0] = [hidden[i].T @ g, g.sum(axis=0)]
        if i:
            g = (g @ w.T) * (1.0 - hidden[i] ** 2)
    return grads


def advantages(values, rewards, lam: float):
    """GAE(lambda) of one game whose only reward comes at its end (no discount)."""
    nxt = np.append(values[1:], 0.0)
    delta = nxt - values
    delta[-1] += rewards
    adv = np.zeros_like(values)
    acc = 0.0
    for t in range(len(values) - 1, -1, -1):
        acc = delta[t] + lam * acc
        adv[t] = acc
    return adv


def ppo_update(policy, value, opt_pi, opt_v, batch, args, rng) -> None:
    """A few epochs of clipped-ratio policy steps and value regression on one batch."""
    x = np.concatenate([np.array(b[0]) for b in batch if b[0]])
    mask = np.concatenate([np.array(b[1]) for b in batch if b[0]])
    acts = np.concatenate([np.array(b[2], dtype=int) for b in batch if b[0]])
    old = np.concatenate([np.array(b[3]) for b in batch if b[0]])
    v_all = value.forward(x)[0][:, 0]
    adv, i = [], 0
    for b in batch:
        k = len(b[0])
        if k:
            adv.append(advantages(v_all[i:i + k], b[4], args.lam))
            i += k
    adv = np.concatenate(adv)
    target = adv + v_all
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    rows = np.arange(len(x))
    for _ in range(args.epochs):
        for idx in np.array_split(rng.permutation(len(x)), max(1, len(x) // args.minibatch)):
            logits, hidden = policy.forward(x[idx])
            p = masked_softmax(logits, mask[idx])
            pa = p[rows[:len(idx)], acts[idx]]
            ratio = pa / old[idx]
            # the clipped objective moves only where the ratio is inside the clip range or
            # the step would bring it back; its gradient is adv * ratio * d log p(a)
            live = np.where(adv[idx] > 0, ratio < 1 + args.clip, ratio > 1 - args.clip)
            w = adv[idx] * ratio * live / len(idx)
            g = -p * w[:, None]
            g[rows[:len(idx)], acts[idx]] += w
            logp = np.log(np.where(mask[idx] > 0, p, 1.0))
            h = -(p * logp).sum(axis=1, keepdims=True)
            g += args.entropy / len(idx) * (-p * (logp + h))
            opt_pi.step(backprop(policy, hidden, g))
            v, vh = value.forward(x[idx])
            opt_v.step(backprop(value, vh, (target[idx] - v[:, 0])[:, None] / len(idx)))


def train(args) -> MLPPolicy:
    policy = MLPPolicy.init(hidden=(args.hidden,), seed=args.seed)
    value = MLPPolicy.init(hidden=(args.hidden,), num_actions=1, seed=args.seed + 1)
    opt_pi = Adam([a for layer in policy.layers for a in layer], args.lr)
    opt_v = Adam([a for layer in value.layers for a in layer], args.lr)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    done = 0
    for name, share in (o.split("=") for o in args.opponents.split(",")):
        env = PalaceEnv(num_players=args.players, opponent=name)
        stop = done + round(float(share) * args.episodes)
        while done < stop:
            batch = [play_episode(env, policy, rng, args.seed * 1_000_003 + done + i)
                     for i in range(min(args.batch, stop - done))]
            done += len(batch)
            ppo_update(policy, value, opt_pi, opt_v, batch, args, rng)
            if done % (args.batch * 5) == 0 or done == stop:
                mean = np.mean([b[4] for b in batch])
                print(f"{done:6d} games, vs {name}: mean reward of the last {len(batch)} "
                      f"{mean:.3f}  {time.perf_counter() - t0:6.1f} s", flush=True)
    print(f"trained on {args.episodes} games in {time.perf_counter() - t0:.1f} s")
    return policy


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=2, help="players (default 2)")
    ap.add_argument("--episodes", type=int, default=3000, help="training games (default 3000)")
    ap.add_argument("--opponents", default="random=0.4,greedy=0.6",
                    help="opponent=share of the training games, in order "
                         "(default random=0.4,greedy=0.6)")
    ap.add_argument("--batch", type=int, default=32, help="games per update (default 32)")
    ap.add_argument("--epochs", type=int, default=4, help="passes over a batch (default 4)")
    ap.add_argument("--minibatch", type=int, default=256,
                    help="decisions per step (default 256)")
    ap.add_argument("--clip", type=float, default=0.2, help="PPO's clip range (default 0.2)")
    ap.add_argument("--lam", type=float, default=0.95, help="GAE's lambda (default 0.95)")
    ap.add_argument("--hidden", type=int, default=64, help="hidden units (default 64)")
    ap.add_argument("--lr", type=float, default=0.003, help="Adam step size (default 0.003)")
    ap.add_argument("--entropy", type=float, default=0.01,
                    help="entropy bonus (default 0.01)")
    ap.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    ap.add_argument("--out", default="palace_policy.npz",
                    help="where to save the policy (default palace_policy.npz)")
    ap.add_argument("--eval-starts", type=int, default=100,
                    help="match starts against each of random and greedy, each played "
                         "in every seating (default 100: 200 games in two players)")
    ap.add_argument("--jobs", type=int, default=1, help="processes for the matches")
    args = ap.parse_args(argv)
    policy = train(args)
    policy.save(args.out)
    print(f"saved {args.out}")
    for rival in ("random", "greedy"):
        t = time.perf_counter()
        summary = run_match(f"policy:path={args.out}", rival, players=args.players,
                            starts=args.eval_starts, seed=args.seed + 1, jobs=args.jobs,
                            progress=False)
        print(format_summary(summary))
        print(f"({time.perf_counter() - t:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
