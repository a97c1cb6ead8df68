"""Train a small Palace agent with a masked-action policy gradient in plain numpy, then
measure it with ``palace match``'s machinery against ``random`` and ``greedy``.

    pip install '.[rl]'
    python examples/train_rl.py                      # a few minutes on one core
    python examples/train_rl.py --episodes 300 --eval-starts 20    # a quick look
    palace match policy:path=palace_policy.npz greedy --starts 100   # the saved policy

The learner plays one seat of the Gymnasium environment ``Palace-v0`` (a random seat each
game) against ``palace match`` agents (``--opponents``, taking turns game by game; default
``random``); the reward is 1 minus its loss share at the end of the game. The policy and a
value estimate are two small networks (:class:`palace_solver.interop.policy.MLPPolicy`: one
tanh layer; the policy a softmax over the legal actions), trained by PPO: batches of games,
advantages by GAE, a few epochs of clipped-ratio steps with Adam and a small entropy bonus.
One addition matters, a potential-based shaping of the reward by the learner's cards in
play (:func:`advantages`): without it the games against ``random``, most of them drawn by a
repeated position, all score the same and nothing is learned in a few thousand games.

The policy is saved (``--out``) and then played in ``palace match`` as the agent
``policy:path=FILE`` against ``random`` and ``greedy``, ``--eval-starts`` starts in both
seatings. It is a way in, not a research result: docs/rl.md has the numbers.
"""
from __future__ import annotations

import os

# Small matrices, one game at a time: BLAS threads only fight over the cores (on a busy
# machine they made each step several times slower). Set before numpy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from palace_solver.interop.gymnasium import PalaceEnv  # noqa: E402
from palace_solver.interop.policy import MLPPolicy, masked_softmax  # noqa: E402
from palace_solver.interop.rl import layout  # noqa: E402
from palace_solver.jobs.match import format_summary, run_match  # noqa: E402


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


_LAYOUT = layout()
_MINE = np.r_[_LAYOUT["seat0.hand_size"], _LAYOUT["seat0.face_up"], _LAYOUT["seat0.face_down"]]


def cards_left(obs) -> float:
    """The learner's cards in play (hand, face-up, face-down), from its observation."""
    return float(obs["observation"][_MINE].sum())


def play_episode(env: PalaceEnv, policy: MLPPolicy, rng, seed: int):
    """One game: the learner's scaled observations, masks, actions and their
    probabilities at its decisions (forced moves left out: they teach nothing), its cards
    in play at each of them, and its reward at the end."""
    obs, _ = env.reset(seed=seed)
    xs, masks, acts, probs, cards = [], [], [], [], []
    while True:
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            a = int(legal[0])
        else:
            x = policy.scale(obs["observation"])
            logits, _ = policy.forward(x[None, :])
            p = masked_softmax(logits, mask[None, :])[0]
            a = min(int(np.searchsorted(np.cumsum(p), rng.random(), side="right")), len(p) - 1)
            while not mask[a]:      # rounding at the very end of the cumulative sum
                a -= 1
            xs.append(x)
            masks.append(mask)
            acts.append(a)
            probs.append(p[a])
            cards.append(cards_left(obs))
        obs, reward, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            return xs, masks, acts, probs, cards, reward


def backprop(net: MLPPolicy, hidden, g):
    """The gradients of the layers given d(objective)/d(output) ``g`` (batch, outputs)."""
    grads = []
    for i in range(len(net.layers) - 1, -1, -1):
        w, _ = net.layers[i]
        grads[:0] = [hidden[i].T @ g, g.sum(axis=0)]
        if i:
            g = (g @ w.T) * (1.0 - hidden[i] ** 2)
    return grads


def advantages(values, cards, reward, lam: float, shaping: float):
    """GAE(lambda) of one game (no discount). Its reward comes at the end; the shaping adds
    ``shaping`` per card the learner got rid of since its previous decision (minus per card
    it took), and takes back what is left at the end. That is a potential-based shaping
    (Ng, Harada and Russell, 1999: the potential is -shaping x cards in play): its sum over
    a game is the same for every line of play, so it changes no policy's value, only how
    soon a decision hears about what it did to the hand."""
    nxt = np.append(values[1:], 0.0)
    delta = nxt - values
    cards = np.asarray(cards)
    delta[:-1] += shaping * (cards[:-1] - cards[1:])
    delta[-1] += reward + shaping * cards[-1]
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
            adv.append(advantages(v_all[i:i + k], b[4], b[5], args.lam, args.shaping))
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
    names = args.opponents.split(",")
    envs = [PalaceEnv(num_players=args.players, opponent=name) for name in names]
    t0 = time.perf_counter()
    done = 0
    while done < args.episodes:
        k = min(args.batch, args.episodes - done)
        batch = [play_episode(envs[(done + i) % len(envs)], policy, rng,
                              args.seed * 1_000_003 + done + i) for i in range(k)]
        done += k
        ppo_update(policy, value, opt_pi, opt_v, batch, args, rng)
        if done % (args.batch * 5) == 0 or done == args.episodes:
            means = ", ".join(f"{name} {np.mean([b[5] for b in batch[j::len(names)]]):.3f}"
                              for j, name in enumerate(names))
            print(f"{done:6d} games, mean reward of the last {k}: {means}  "
                  f"{time.perf_counter() - t0:6.1f} s", flush=True)
    print(f"trained on {args.episodes} games in {time.perf_counter() - t0:.1f} s")
    return policy


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=2, help="players (default 2)")
    ap.add_argument("--episodes", type=int, default=2000, help="training games (default 2000)")
    ap.add_argument("--opponents", default="random",
                    help="the training opponents, comma-separated, taking turns game by "
                         "game (default random)")
    ap.add_argument("--batch", type=int, default=32, help="games per update (default 32)")
    ap.add_argument("--epochs", type=int, default=4, help="passes over a batch (default 4)")
    ap.add_argument("--minibatch", type=int, default=256,
                    help="decisions per step (default 256)")
    ap.add_argument("--clip", type=float, default=0.2, help="PPO's clip range (default 0.2)")
    ap.add_argument("--lam", type=float, default=0.95, help="GAE's lambda (default 0.95)")
    ap.add_argument("--shaping", type=float, default=0.02,
                    help="potential-based shaping per card in play (default 0.02; 0: none)")
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
    t0 = time.process_time()
    policy = train(args)
    print(f"({time.process_time() - t0:.1f} s of CPU)")
    policy.save(args.out)
    print(f"saved {args.out}")
    for rival in ("random", "greedy") if args.eval_starts > 0 else ():
        t = time.perf_counter()
        summary = run_match(f"policy:path={args.out}", rival, players=args.players,
                            starts=args.eval_starts, seed=args.seed + 1, jobs=args.jobs,
                            progress=False)
        print(format_summary(summary))
        print(f"({time.perf_counter() - t:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
