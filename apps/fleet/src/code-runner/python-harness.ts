import type { CodeRunnerLimits } from './limits.js';

/**
 * The command that runs the Python harness (after the prefix that isolates it), which sets its
 * own rlimits (CPU, address space: unlike V8, CPython reserves little it does not use, and file
 * size), so prlimit is not needed. `-I` keeps the host's PYTHON* variables and user site-packages out.
 */
export function pythonCommand(python: string, dir: string, limits: CodeRunnerLimits): string[] {
  return [python, '-I', '-B', `${dir}/harness.py`, String(limits.cpuSeconds), String(limits.memoryMb * 1024 * 1024), String(limits.fileMb * 1024 * 1024)];
}

/**
 * The Python harness: the same protocol as the Node one (see harness-events.ts). It limits
 * itself, patches `socket` and the process-starting functions of `os` and `subprocess` (to
 * report what was refused; what confines the run is the kernel, see confine.ts), reads the
 * arguments from stdin, runs the candidate's source and calls the entry once per case.
 */
export const PYTHON_HARNESS = String.raw`import json, os, resource, sys, time, traceback

RESULTS = os.fdopen(3, 'w', encoding='utf-8')
HERE = os.path.dirname(os.path.abspath(__file__))


def emit(event):
    RESULTS.write(json.dumps(event) + '\n')
    RESULTS.flush()


class NetworkDenied(PermissionError):
    pass


def deny_network(what):
    def denied(*args, **kwargs):
        emit({'t': 'denied', 'what': what})
        raise NetworkDenied('network access is denied in the code runner (%s)' % what)
    return denied


def deny_spawn(what):
    def denied(*args, **kwargs):
        raise PermissionError('starting processes is denied in the code runner (%s)' % what)
    return denied


def guard():
    import socket, subprocess
    for name in ('connect', 'connect_ex', 'bind', 'listen', 'sendto'):
        setattr(socket.socket, name, deny_network('socket.' + name))
    for name in ('create_connection', 'create_server', 'getaddrinfo', 'gethostbyname', 'gethostbyname_ex', 'gethostbyaddr'):
        setattr(socket, name, deny_network('socket.' + name))
    for name in ('system', 'popen', 'fork', 'forkpty', 'execv', 'execve', 'execvp', 'execvpe', 'execl', 'execle', 'execlp', 'execlpe',
                 'spawnv', 'spawnve', 'spawnvp', 'spawnvpe', 'spawnl', 'spawnle', 'spawnlp', 'spawnlpe', 'posix_spawn', 'posix_spawnp'):
        if hasattr(os, name):
            setattr(os, name, deny_spawn('os.' + name))
    subprocess.Popen = deny_spawn('subprocess.Popen')


def kind_of(error):
    if isinstance(error, NetworkDenied):
        return 'network'
    if isinstance(error, MemoryError):
        return 'memory'
    return 'error'


def describe(error):
    if isinstance(error, SyntaxError):
        return '%s: %s (candidate.py, line %s)\n%s' % (type(error).__name__, error.msg, error.lineno, (error.text or '').rstrip())
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == 'candidate.py'][-5:]
    lines = ''.join(traceback.format_exception_only(type(error), error)).strip().splitlines()
    return '\n'.join(lines + ['  candidate.py, line %d, in %s' % (f.lineno, f.name) for f in frames])


def main():
    cpu, memory, file_size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    payload = json.loads(sys.stdin.read())
    guard()
    with open(os.path.join(HERE, 'candidate.py'), encoding='utf-8') as file:
        source = file.read()
    try:
        code = compile(source, 'candidate.py', 'exec')
    except (SyntaxError, ValueError) as error:
        return emit({'t': 'load', 'kind': 'syntax', 'error': describe(error)})
    namespace = {'__name__': 'candidate'}
    try:
        exec(code, namespace)
    except BaseException as error:  # SystemExit too: the candidate does not end the run
        return emit({'t': 'load', 'kind': kind_of(error), 'error': describe(error)})
    entry = namespace.get(payload['entry'])
    if not callable(entry):
        return emit({'t': 'load', 'kind': 'error', 'error': '%s is not a function the code defines' % payload['entry']})
    for i, args in enumerate(payload['args']):
        started = time.perf_counter()
        try:
            value = entry(*args)
            if hasattr(value, '__await__'):
                import asyncio
                value = asyncio.run(value)
            try:
                event = {'t': 'case', 'i': i, 'ok': True, 'json': json.dumps(value, allow_nan=False)}
            except (TypeError, ValueError) as error:
                event = {'t': 'case', 'i': i, 'ok': False, 'kind': 'error', 'error': 'returned a value that is not JSON: %s' % error}
        except BaseException as error:
            event = {'t': 'case', 'i': i, 'ok': False, 'kind': kind_of(error), 'error': describe(error)}
        event['ms'] = (time.perf_counter() - started) * 1000
        emit(event)


try:
    main()
    emit({'t': 'done'})
except BaseException as error:
    emit({'t': 'fatal', 'kind': kind_of(error), 'error': describe(error)})
RESULTS.flush()
os._exit(0)
`;
