"""Training on several processes, started by PyTorch's own launcher, ``torchrun``.

``torchrun`` sets ``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` in each process's environment;
without them training runs in one process, unchanged. With them, every process draws the same
global batch (the batches are seeded by step) and trains on its share, ``examples[rank::world]``;
``DistributedDataParallel`` adds up the gradients, so a step equals the single-process step on
the whole batch (each process scales its loss by the world size, since DDP averages). Only
rank 0 evaluates and writes checkpoints and logs. The backend is NCCL on GPUs, gloo on CPU.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import torch
import torch.distributed as dist

Item = TypeVar("Item")


@dataclass(frozen=True)
class Distributed:
    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def active(self) -> bool:
        return self.world > 1

    @property
    def main(self) -> bool:
        """This process writes checkpoints and logs."""
        return self.rank == 0

    def shard(self, items: Sequence[Item]) -> list[Item]:
        """This process's share of the global batch."""
        return list(items[self.rank :: self.world])

    def total(self, value: float) -> float:
        """The sum of ``value`` over every process (itself when alone)."""
        if not self.active:
            return value
        tensor = torch.tensor([value], dtype=torch.float64, device=self.device_for_collectives())
        dist.all_reduce(tensor)
        return float(tensor.item())

    def device_for_collectives(self) -> torch.device:
        return torch.device("cuda", self.local_rank) if dist.get_backend() == "nccl" else torch.device("cpu")


SINGLE = Distributed()


def from_environment() -> Distributed:
    """The process's place in a ``torchrun`` launch, or a single process."""
    try:
        world = int(os.environ.get("WORLD_SIZE", "1"))
        if world <= 1:
            return SINGLE
        return Distributed(int(os.environ["RANK"]), world, int(os.environ.get("LOCAL_RANK", "0")))
    except (KeyError, ValueError) as error:
        raise ValueError(f"the torchrun environment is incomplete or malformed: {error}") from error


def start(place: Distributed, device: torch.device) -> torch.device:
    """Join the process group (once); the device this process trains on."""
    if not place.active:
        return device
    if device.type == "cuda":
        device = torch.device("cuda", place.local_rank)
        torch.cuda.set_device(device)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return device


def finish(place: Distributed) -> None:
    if place.active and dist.is_initialized():
        dist.barrier()  # rank 0 may still be writing: leave together
        dist.destroy_process_group()
