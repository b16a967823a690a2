"""The cooperative agent: one line in a training script lets gpudesk probe it without injection.

In the script (after ``import torch`` or before, it does not matter)::

    import gpudesk.oom.agent; gpudesk.oom.agent.install()

``install()`` starts a daemon thread that answers on a unix socket ``<agent dir>/<pid>.sock`` (the folder is
0700, the socket 0600: only the same user and root can connect), and, when SIGUSR1 is not already used by
the program, a SIGUSR1 handler that writes the probe answer to ``<agent dir>/<pid>.json`` (0600). Both run
the same probe as every other method (:mod:`gpudesk.oom.probe_script`): it never imports torch, never
initialises CUDA, and from the socket thread never calls anything that uses the thread's current device.
The socket thread answers while the main thread runs Python code or waits in calls that release the GIL
(CUDA synchronisation, I/O); a C loop that holds the GIL delays the answer until it returns, and a signal
waits for the main thread's next bytecode.

The agent folder is the first usable of: ``$GPUDESK_AGENT_DIR``; ``$XDG_RUNTIME_DIR/gpudesk-agents``;
``/run/user/<uid>/gpudesk-agents`` (systemd's per-user runtime folder, 0700, even in SSH sessions without
XDG_RUNTIME_DIR); ``<user cache folder>/agents`` (``~/.cache/gpudesk/agents``, inside the user's home); and only
then ``<tempdir>/gpudesk-agents-<uid>``. Folders other users can create come last, because a folder someone
else made first (a squatted ``/tmp`` name) must not stop the agent: a candidate that exists but is not owned by
the user with mode 0700 is skipped with a warning naming it and saying how to free it, and the next one is
used. A socket path must fit AF_UNIX's 108 bytes, so longer candidates are skipped too.

Client side (gpudesk): :func:`agent_available`, :func:`query_agent` (socket), :func:`query_agent_signal`.
Protocol: the client sends one JSON line ``{"op": "probe", "reset_peak": false}``; the agent answers with the
probe's JSON document and closes the connection.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import TypedDict

import platformdirs

from gpudesk import APP_NAME
from gpudesk.oom import probe_script
from gpudesk.oom.errors import (
    MethodUnavailable,
    ProbeResultError,
    ProbeTimeout,
    TargetNotFound,
)
from gpudesk.i18n import _

MAX_REQUEST_BYTES = 4096


class _AgentState(TypedDict, total=False):
    server: socket.socket  # the listening socket, once install() opened it
    signal: bool  # True once the SIGUSR1 handler is set
    pid: int  # the process that installed the agent (a forked child installs its own)
    path: Path | None  # the socket path (None without socket)


_state: _AgentState = {}


ENV_AGENT_DIR = "GPUDESK_AGENT_DIR"
MAX_SOCKET_PATH_BYTES = 100  # AF_UNIX sun_path is 108 bytes on Linux (104 on macOS), with room for the PID


def _private_parent(path: Path) -> bool:
    """True when ``path`` is a folder of this user that no one else can write into."""
    try:
        st = path.stat()
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not stat.S_IMODE(st.st_mode) & 0o022


def _candidates() -> list[Path]:
    """Agent folders in order of preference (see the module docstring); the temp-folder one last."""
    out: list[Path] = []
    override = os.environ.get(ENV_AGENT_DIR)
    if override:
        out.append(Path(override).expanduser())
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        out.append(Path(runtime) / "gpudesk-agents")
    if hasattr(os, "getuid"):
        systemd_runtime = Path(f"/run/user/{os.getuid()}")
        if _private_parent(systemd_runtime):
            out.append(systemd_runtime / "gpudesk-agents")
    cache = Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
    out.append(cache / "agents")
    out.append(Path(tempfile.gettempdir()) / f"gpudesk-agents-{os.getuid()}")
    unique: list[Path] = []
    for p in out:
        if p not in unique and len(os.fsencode(str(p / "4194304.sock"))) <= MAX_SOCKET_PATH_BYTES:
            unique.append(p)
    return unique


def _not_private_reason(base: Path) -> str | None:
    """None when ``base`` is a folder owned by this user with no access for others; else why not, saying how to
    free the name."""
    st = base.lstat()
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not stat.S_IMODE(st.st_mode) & 0o077:
        return None
    owner = f"user id {st.st_uid}" if st.st_uid != os.getuid() else "you"
    return (f"{base} is not a private folder of this user (owned by {owner}, mode {oct(stat.S_IMODE(st.st_mode))}); "
            f"the gpudesk agent will not use it. Remove it (as its owner or root), or set {ENV_AGENT_DIR} to a "
            "folder only you can open.")


def _check_private(base: Path) -> None:
    why = _not_private_reason(base)
    if why is not None:
        raise PermissionError(why)


def agent_dir(create: bool = False) -> Path:
    """The per-user agent folder the agent of this process uses: the first candidate that is private to this
    user or can be created so (see the module docstring). A taken candidate is skipped with a warning.

    Raises:
        PermissionError: no candidate is usable (each one's problem is in the message).
    """
    problems: list[str] = []
    for base in _candidates():
        try:
            if create and not base.exists():
                base.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                base.mkdir(mode=0o700)
                os.chmod(base, 0o700)
            if not base.exists():
                return base  # the first candidate we could create: nothing there yet
            why = _not_private_reason(base)
        except OSError as exc:
            why = f"{base} cannot be used ({exc.strerror or exc})"
        if why is None:
            if problems:
                sys.stderr.write("gpudesk agent: " + " ".join(problems) + f" Using {base} instead.\n")
            return base
        problems.append(why)
    raise PermissionError(" ".join(problems))


def socket_path(pid: int) -> Path:
    """Where the agent of ``pid`` listens. A job started from another session (SSH, tmux, cron) may have had
    other environment variables and used another candidate folder: all are looked at; the first private one
    holding the socket wins (a socket in a folder someone else owns is never trusted).

    Raises:
        PermissionError: no candidate folder is usable.
    """
    problems: list[str] = []
    for base in _candidates():
        path = base / f"{pid}.sock"
        if path.exists():
            why = _not_private_reason(base)
            if why is None:
                return path
            problems.append(why)
    try:
        return agent_dir() / f"{pid}.sock"
    except PermissionError:
        if problems:
            raise PermissionError(" ".join(problems)) from None
        raise


def _serve(server: socket.socket) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return  # the socket was closed by uninstall()
        with conn:
            conn.settimeout(5.0)
            try:
                raw = conn.recv(MAX_REQUEST_BYTES)
                request = json.loads(raw.decode("utf-8") or "{}")
                reset = bool(request.get("reset_peak", False)) if isinstance(request, dict) else False
                doc = probe_script.collect(reset_peak=reset)
                doc["method"] = "agent"
                conn.sendall(json.dumps(doc).encode("utf-8"))
            except (OSError, ValueError) as exc:
                sys.stderr.write(f"gpudesk agent: a request failed: {exc}\n")


def _on_signal(signum: int, frame: FrameType | None) -> None:
    path = str(agent_dir() / f"{os.getpid()}.json")
    probe_script.run_to_file(path)


def install(*, use_socket: bool = True, use_signal: bool = True) -> Path | None:
    """Start answering gpudesk probes. Idempotent; returns the socket path (None without socket).

    Raises:
        PermissionError: the agent folder is not private to this user.
        OSError: the socket cannot be created.
    """
    if _state.get("pid") == os.getpid():
        return _state.get("path")
    folder = agent_dir(create=True)
    path = None
    if use_socket:
        path = folder / f"{os.getpid()}.sock"
        if path.exists():
            path.unlink()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        os.chmod(path, 0o600)
        server.listen(4)
        thread = threading.Thread(target=_serve, args=(server,), name="gpudesk-oom-agent", daemon=True)
        thread.start()
        _state["server"] = server
    if use_signal and hasattr(signal, "SIGUSR1") and threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGUSR1) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGUSR1, _on_signal)
            _state["signal"] = True
        else:
            sys.stderr.write("gpudesk agent: SIGUSR1 is already used by this program; only the socket answers.\n")
    _state["pid"] = os.getpid()
    _state["path"] = path
    return path


def uninstall() -> None:
    """Stop the agent and remove its socket (tests; a script normally leaves it running until exit)."""
    server = _state.pop("server", None)
    if server is not None:
        server.close()
    path = _state.pop("path", None)
    if path is not None and Path(path).exists():
        Path(path).unlink()
    if _state.pop("signal", False):
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    _state.pop("pid", None)  # the last key: the state is empty again


# --- client side --------------------------------------------------------------------------------------------


def agent_available(pid: int) -> str | None:
    """None when an agent socket for ``pid`` is there and private; else the reason it cannot be used."""
    try:
        path = socket_path(pid)
    except PermissionError as exc:
        return str(exc)
    if not path.exists():
        return (f"no gpudesk agent in process {pid} (add `import gpudesk.oom.agent; gpudesk.oom.agent.install()` "
                "to the script, or the process runs in another container with its own /tmp)")
    st = path.lstat()
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid():
        return f"{path} is not an agent socket owned by you"
    if _older_than_process(st.st_mtime, pid):
        # PIDs are reused: an agent process that was killed leaves its socket behind, and a later process may
        # get the same PID. A socket made before this process started cannot be its agent.
        _remove_stale_socket(pid)
        return (f"no gpudesk agent in process {pid} (a stale agent socket left by an earlier process with the "
                "same PID was removed)")
    return None


def _older_than_process(mtime_s: float, pid: int) -> bool:
    """True when a file modified at ``mtime_s`` (Unix time, seconds) predates the start of process ``pid``."""
    import psutil

    try:
        started: float = psutil.Process(pid).create_time()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False  # gone or unreadable: the connection attempt tells stale from live
    return mtime_s < started - 1.0  # create_time has a clock-tick resolution


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_socket(pid: int) -> None:
    try:
        os.unlink(socket_path(pid))
    except OSError:
        pass  # already gone, or not ours to remove: the caller reports the agent as unavailable either way


def query_agent(pid: int, *, reset_peak: bool = False, timeout_s: float = 10.0) -> bytes:
    """Ask the agent in ``pid`` for a probe; returns the raw JSON answer.

    Raises:
        MethodUnavailable: no agent socket for this PID.
        TargetNotFound: the socket is stale (the process is gone).
        ProbeTimeout: no answer within ``timeout_s``.
        ProbeResultError: the answer is empty.
    """
    why = agent_available(pid)
    if why:
        raise MethodUnavailable("agent", why)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(timeout_s)
    try:
        client.connect(str(socket_path(pid)))
        client.sendall(json.dumps({"op": "probe", "reset_peak": reset_peak}).encode("utf-8"))
        chunks = []
        while True:
            chunk = client.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except (ConnectionRefusedError, FileNotFoundError) as exc:
        if _pid_alive(pid):
            # PIDs are reused: the socket was left by an earlier process that had this PID and exited without
            # removing it. The live process has no agent; the stale file is removed so it cannot mislead again.
            _remove_stale_socket(pid)
            raise MethodUnavailable(
                "agent",
                _("no gpudesk agent is listening in process {pid} (a stale agent socket left by an earlier "
                  "process with the same PID was removed)").format(pid=pid),
            ) from exc
        raise TargetNotFound(_("The agent socket of process {pid} is stale: the process has exited.").format(pid=pid)) from exc
    except TimeoutError as exc:
        raise ProbeTimeout(
            _("The agent in process {pid} did not answer within {timeout_s:g} s: the process is probably busy in "
              "native code that holds the GIL (a C extension, a long regular expression), so the agent's thread "
              "cannot run until that call returns. It was left running and unharmed; try again later or with a "
              "longer timeout.").format(pid=pid, timeout_s=timeout_s)
        ) from exc
    finally:
        client.close()
    data = b"".join(chunks)
    if not data:
        raise ProbeResultError(_("The agent in process {pid} closed the connection without an answer.").format(pid=pid))
    return data


def query_agent_signal(pid: int, *, timeout_s: float = 10.0) -> bytes:
    """Send SIGUSR1 to an agent-equipped process and read the JSON it writes.

    Only for processes whose agent answered on a socket before or that print that they installed the
    signal handler: SIGUSR1 kills a process that has no handler.

    Raises:
        MethodUnavailable: no agent socket for this PID (so no proof that a handler is installed).
        TargetNotFound / ProbeTimeout: as :func:`gpudesk.oom.channel.wait_for_file`.
    """
    from gpudesk.oom.channel import wait_for_file

    why = agent_available(pid)
    if why:
        raise MethodUnavailable("agent", why)
    path = socket_path(pid).with_suffix(".json")
    if path.exists():
        path.unlink()
    os.kill(pid, signal.SIGUSR1)
    start = time.monotonic()
    data = wait_for_file(path, pid, timeout_s, what="the agent's signal handler")
    path.unlink()
    if time.monotonic() - start > timeout_s:
        raise ProbeTimeout(_("Process {pid} answered too late.").format(pid=pid))
    return data
