"""The executor seam: map a pure work function over serialisable inputs, locally or on Ray.

A job is three module-level callables and its inputs, never state inherited from the driver:

- ``setup(spec)`` builds a worker's context once (a tool session, an agent, a store client)
  from a serialisable pydantic ``spec``;
- ``fn(context, item)`` does one unit of work (sync or async) and returns a picklable result
  (a pydantic model);
- ``items`` are the units' inputs (pydantic models).

:meth:`Executor.stream` yields ``(index, result)`` pairs as units finish, so the caller (the
driver) writes each result to the run folder at once; all decisions and writes stay there.

``local`` (the default) runs one context in this process and fans the units out with
:func:`generator.concurrency.fan_out`. ``ray`` starts a local Ray instance, or joins the
cluster at ``RAY_ADDRESS``, and runs ``workers`` Ray actors spread over the nodes, each with
its own context; an actor lost with its node is restarted elsewhere and its units retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from generator.concurrency import fan_out, to_thread
from generator.errors import UserError

S = TypeVar("S")
C = TypeVar("C")
I = TypeVar("I")  # noqa: E741
O = TypeVar("O")  # noqa: E741

EXECUTORS = ("local", "ray")
RAY_FIX = "pip install -e '.[ray]'"
# A local Ray instance stays small: the machines we run on are shared.
LOCAL_RAY_OBJECT_STORE = 200 * 1024 * 1024
# Tries to put an actor on the node it was dealt to before keeping it where Ray put it.
PLACE_ATTEMPTS = 6



class Executor(Protocol):
    """Runs a job's units and streams their results back as they finish."""

    name: str

    def stream(self, setup: Callable[[S], C], spec: S, fn: Callable[[C, I], Any],
               items: Sequence[I], *, concurrency: int = 1,
               workers: int | None = None) -> AsyncIterator[tuple[int, O]]:
        """Yield ``(index into items, result)`` for every unit, in the order they finish.

        Args:
            setup: Builds a worker's context from ``spec`` (once per worker).
            spec: The worker's serialisable input.
            fn: One unit of work on a context.
            items: The units' inputs.
            concurrency: Units in flight at once per worker.
            workers: Ray workers (default: the cluster's CPUs, at most one per unit); the
                local executor has one.
        """
        ...

    def close(self) -> None:
        """Release what the executor started (a local Ray instance)."""


def _close_context(ctx: Any) -> None:
    close = getattr(ctx, "close", None)
    if callable(close):
        close()


async def _call(fn: Callable[..., Any], ctx: Any, item: Any) -> Any:
    out = fn(ctx, item)
    return await out if inspect.isawaitable(out) else out


async def _queued(items: Sequence[I], one: Callable[[I], Awaitable[O]],
                  limit: int) -> AsyncIterator[tuple[int, O]]:
    """Run ``one`` over ``items`` through :func:`fan_out`, yielding results as they finish."""
    done: asyncio.Queue[tuple[int, O]] = asyncio.Queue()

    async def run(pair: tuple[int, I]) -> None:
        done.put_nowait((pair[0], await one(pair[1])))

    task = asyncio.ensure_future(fan_out(list(enumerate(items)), run, limit=max(1, limit)))
    try:
        for _ in range(len(items)):
            getter = asyncio.ensure_future(done.get())
            finished, _pending = await asyncio.wait({getter, task},
                                                    return_when=asyncio.FIRST_COMPLETED)
            if getter not in finished:  # fan_out ended first: it raised
                getter.cancel()
                task.result()
                raise RuntimeError("fan_out ended before every unit reported")  # a bug
            yield getter.result()
        await task
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


class LocalExecutor:
    """One context in this process; units fanned out on the event loop."""

    name = "local"

    async def stream(self, setup: Callable[[S], C], spec: S, fn: Callable[[C, I], Any],
                     items: Sequence[I], *, concurrency: int = 1,
                     workers: int | None = None) -> AsyncIterator[tuple[int, O]]:
        """See :meth:`Executor.stream` (``workers`` is ignored: one context)."""
        del workers
        ctx = setup(spec)
        sync = not inspect.iscoroutinefunction(fn)

        async def one(item: I) -> O:
            if sync:  # a blocking unit runs in the bounded pool, never on the loop
                return await to_thread(fn, ctx, item)
            return await _call(fn, ctx, item)

        try:
            async for pair in _queued(items, one, concurrency):
                yield pair
        finally:
            _close_context(ctx)

    def close(self) -> None:
        """Nothing to release."""


def _check_reachable(address: str) -> None:
    """Refuse a ``host:port`` nobody listens on at once (Ray itself retries for minutes)."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise UserError("RAY_ADDRESS is not host:port", value=address,
                        fix="set RAY_ADDRESS to the head node's GCS address (host:6379, as "
                        "`ray start --head` prints it), or unset it to start a local Ray")
    try:
        with socket.create_connection((host, int(port)), timeout=3.0):
            pass
    except OSError as exc:
        raise UserError(f"no Ray cluster answers at RAY_ADDRESS={address} ({exc.strerror or exc})",
                        fix="start the head with `ray start --head --port 6379` and set "
                        "RAY_ADDRESS to host:6379, or unset RAY_ADDRESS to start a local Ray"
                        ) from None


async def _placed(ray: Any, make: Callable[[str], Any], node: str) -> Any:
    """An actor made by ``make(node)`` that runs on ``node``: a soft affinity falls back to
    another node when the scheduler's view of ``node`` is stale (a node that joined moments
    ago), so a misplaced actor is replaced, a few times, before it is kept where it is."""
    for attempt in range(PLACE_ATTEMPTS - 1):
        actor = make(node)
        if await actor.node.remote() == node:
            return actor
        ray.kill(actor)
        await asyncio.sleep(0.5 * 2**attempt)
    return make(node)


def _actor_class() -> Any:
    import ray

    @ray.remote
    class Worker:
        """One Ray worker: its own context, built once from the spec."""

        def __init__(self, setup: Callable[[Any], Any], spec: Any,
                     fn: Callable[..., Any]) -> None:
            self.ctx = setup(spec)
            self.fn = fn

        async def call(self, item: Any) -> Any:
            return await _call(self.fn, self.ctx, item)

        def node(self) -> str:
            return str(ray.get_runtime_context().get_node_id())

        def close(self) -> None:
            _close_context(self.ctx)

    return Worker


class RayExecutor:
    """Ray actors, spread over the cluster's nodes; started lazily on the first job."""

    name = "ray"

    def __init__(self, address: str | None = None) -> None:
        self.address = address or None
        self._started = False

    def _init(self) -> Any:
        try:
            import ray
        except ImportError:
            raise UserError("--executor ray needs Ray, which is not installed",
                            options=EXECUTORS, fix=RAY_FIX + " (or use --executor local)"
                            ) from None
        if ray.is_initialized():
            return ray
        import logging

        if self.address:
            _check_reachable(self.address)
            try:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                         logging_level=logging.WARNING)
            except (ConnectionError, RuntimeError, ray.exceptions.RayError) as exc:
                raise UserError(f"cannot join the Ray cluster at RAY_ADDRESS={self.address} "
                                f"({(str(exc).splitlines() or [''])[0][:200]})",
                                fix="check RAY_ADDRESS against what `ray start --head` "
                                "printed and that this host has the cluster's token "
                                "(~/.ray/auth_token or RAY_AUTH_TOKEN), or unset RAY_ADDRESS "
                                "to start a local Ray") from None
        else:
            ray.init(num_cpus=min(2, os.cpu_count() or 1), include_dashboard=False,
                     object_store_memory=LOCAL_RAY_OBJECT_STORE, log_to_driver=False,
                     logging_level=logging.WARNING)
        self._started = True
        return ray

    async def stream(self, setup: Callable[[S], C], spec: S, fn: Callable[[C, I], Any],
                     items: Sequence[I], *, concurrency: int = 1,
                     workers: int | None = None) -> AsyncIterator[tuple[int, O]]:
        """See :meth:`Executor.stream`."""
        ray = self._init()
        if not items:
            return
        if workers is None:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        workers = max(1, min(workers, len(items)))
        # The spec goes by value (a small pydantic model): an actor restarted after its node
        # was lost must not depend on an object that may have been lost with it. Actors
        # take no CPU slot (a unit's concurrency is the actor's max_concurrency) and are
        # dealt round the live nodes (Ray's SPREAD leaves CPU-less actors on one node); the
        # affinity is soft, so an actor lost with its node restarts on another and its units
        # in flight are retried there.
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))
        worker_cls = _actor_class()

        def make(node: str) -> Any:
            return worker_cls.options(
                num_cpus=0, max_restarts=-1, max_task_retries=-1,
                max_concurrency=max(1, concurrency),
                scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=True),
            ).remote(setup, spec, fn)

        actors = list(await asyncio.gather(
            *(_placed(ray, make, nodes[i % len(nodes)]) for i in range(workers))))
        slots: asyncio.Queue[Any] = asyncio.Queue()
        for _ in range(max(1, concurrency)):
            for actor in actors:
                slots.put_nowait(actor)

        async def one(item: I) -> O:
            actor = await slots.get()
            try:
                return await actor.call.remote(item)
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                raise (cause if isinstance(cause, Exception) else exc) from None
            finally:
                slots.put_nowait(actor)

        try:
            async for pair in _queued(items, one, workers * max(1, concurrency)):
                yield pair
        finally:
            for actor in actors:
                with contextlib.suppress(ray.exceptions.RayError):  # lost with its node
                    await actor.close.remote()
                ray.kill(actor)

    def close(self) -> None:
        """Shut down the Ray instance this executor started (not a cluster it joined)."""
        if self._started:
            import ray

            ray.shutdown()
            self._started = False


def make_executor(name: str | None = None, address: str | None = None) -> Executor:
    """The executor named by ``name`` (default ``SCENARIOGEN_EXECUTOR``, else ``local``).

    Args:
        name: ``local`` or ``ray``.
        address: The Ray cluster to join (default ``RAY_ADDRESS``; unset: a local Ray).

    Raises:
        UserError: Unknown name, or Ray not installed.
    """
    chosen = (name or os.environ.get("SCENARIOGEN_EXECUTOR") or "local").strip().lower()
    if chosen == "local":
        return LocalExecutor()
    if chosen == "ray":
        if importlib_find("ray") is None:
            raise UserError("--executor ray needs Ray, which is not installed",
                            options=EXECUTORS, fix=RAY_FIX + " (or use --executor local)")
        return RayExecutor(address if address is not None else os.environ.get("RAY_ADDRESS"))
    raise UserError("unknown --executor (or SCENARIOGEN_EXECUTOR)", value=chosen,
                    options=EXECUTORS, fix="pass --executor local or --executor ray")


def importlib_find(module: str) -> Any:
    """The module's import spec, or None when it is not installed."""
    import importlib.util

    return importlib.util.find_spec(module)
