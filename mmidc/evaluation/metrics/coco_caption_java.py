"""pycocoevalcap's Java-backed parts (PTB tokenizer, METEOR) on a chosen JVM.

pycocoevalcap starts ``java`` by name and writes temporary files into its own
package folder. The two small subclasses here run the same jars with the same
flags, but with an explicit java binary, temporary files in the system temp
folder, and clear errors (with the JVM's stderr) instead of hangs when the
Java process dies or stops answering.
"""
import atexit
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from typing import Dict, List, Sequence, Tuple

from pycocoevalcap.meteor import meteor as _meteor_module
from pycocoevalcap.meteor.meteor import METEOR_JAR, Meteor
from pycocoevalcap.tokenizer import ptbtokenizer as _ptb_module
from pycocoevalcap.tokenizer.ptbtokenizer import (PUNCTUATIONS,
                                                  STANFORD_CORENLP_3_4_1_JAR,
                                                  PTBTokenizer)

#: Every character ``str.splitlines`` ends a line at (also U+0085 NEL and the
#: Unicode line / paragraph separators, which Java ends lines at too).
_LINE_BREAKS = re.compile('[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]')

_PTB_DIR = os.path.dirname(os.path.abspath(_ptb_module.__file__))
_METEOR_DIR = os.path.dirname(os.path.abspath(_meteor_module.__file__))


class _Watchdog:
    """Kills ``proc`` if :meth:`tick` is not called for ``timeout`` s."""

    def __init__(self, proc: subprocess.Popen, timeout: float):
        self.proc, self.timeout = proc, timeout
        self.fired = False
        self._last = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def tick(self) -> None:
        self._last = time.monotonic()

    def _watch(self) -> None:
        while not self._stop.wait(min(1., self.timeout)):
            if time.monotonic() - self._last > self.timeout:
                self.fired = True
                self.proc.kill()
                return

    def __enter__(self) -> '_Watchdog':
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _ignore_sigterm() -> None:
    """Run in a JVM's child process before ``exec``: SIGTERM ignored.

    ``scancel`` and Slurm's preemption signal every process of the job: a
    JVM that died of it would fail the validation that a training run is
    finishing before it saves and stops (``SafeCheckpointHook``). The JVMs
    end with their work instead: the tokenizer with its file, METEOR when
    its input closes (its owner closes or exits).
    """
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def one_line(text: str) -> str:
    """``text`` with every line break character replaced by a space, so that
    a sentence is one line of a line-based Java protocol."""
    return _LINE_BREAKS.sub(' ', text)


def _stderr_tail(stderr_file, limit: int = 2000) -> str:
    """The last ``limit`` characters a process wrote to ``stderr_file``."""
    stderr_file.seek(0)
    text = stderr_file.read().decode('utf-8', errors='replace')
    return text[-limit:].strip() or '(no output on stderr)'


class JavaPTBTokenizer(PTBTokenizer):
    """pycocoevalcap's ``PTBTokenizer`` run with an explicit java binary.

    Same jar (Stanford CoreNLP 3.4.1), same flags (``-preserveLines
    -lowerCase``) and the same punctuation removal as the original, so the
    tokens are identical; the sentence file goes to the system temp folder
    instead of the (possibly read-only) package folder.

    Line breaks inside a sentence (``\\n``, ``\\r``, U+2028, U+0085, ...)
    become spaces first: the tokenizer reads one sentence a line, and an
    extra line would pair every later sentence with the wrong text. Its
    output must have exactly one line per sentence, or a ``RuntimeError``
    is raised.

    Args:
        java (str): Path of the java binary.
        timeout (float): Seconds the tokenizer may run before it is killed
            and a ``RuntimeError`` raised. Defaults to 600.
    """

    def __init__(self, java: str, timeout: float = 600.):
        self.java = java
        self.timeout = timeout

    def tokenize(self, captions_for_image: Dict) -> Dict[object, List[str]]:
        """Tokenise ``{key: [{'caption': str}, ...]}`` into
        ``{key: [tokenised str, ...]}`` (keys in input order)."""
        keys = [k for k, caps in captions_for_image.items() for _ in caps]
        sentences = [
            one_line(c['caption'])
            for caps in captions_for_image.values() for c in caps
        ]
        lines = self._run_jar('\n'.join(sentences))
        if len(lines) != len(sentences):
            raise RuntimeError(
                f'PTB tokenizer ({self.java}) returned {len(lines)} lines for '
                f'{len(sentences)} sentences: the tokens cannot be matched to '
                'their sentences.')
        tokenized: Dict[object, List[str]] = {}
        for key, line in zip(keys, lines):
            words = [w for w in line.rstrip().split(' ')
                     if w not in PUNCTUATIONS]
            tokenized.setdefault(key, []).append(' '.join(words))
        return tokenized

    def _run_jar(self, text: str) -> List[str]:
        jar = os.path.join(_PTB_DIR, STANFORD_CORENLP_3_4_1_JAR)
        with tempfile.TemporaryDirectory(prefix='mmidc_ptb_') as tmp_dir:
            sentence_file = os.path.join(tmp_dir, 'sentences.txt')
            with open(sentence_file, 'wb') as f:
                f.write(text.encode('utf-8'))
            cmd = [
                self.java, '-Dfile.encoding=UTF-8', '-cp', jar,
                'edu.stanford.nlp.process.PTBTokenizer', '-preserveLines',
                '-lowerCase', sentence_file
            ]
            try:
                proc = subprocess.run(cmd, capture_output=True,
                                      timeout=self.timeout,
                                      preexec_fn=_ignore_sigterm)
            except subprocess.TimeoutExpired:
                raise RuntimeError(
                    f'PTB tokenizer ({self.java}) did not finish within '
                    f'{self.timeout}s and was killed; check the Java runtime '
                    'or raise the limit (tokenizer_timeout of IDCMetric / '
                    'CaptionScorer)') from None
        if proc.returncode != 0:
            err = proc.stderr.decode('utf-8', errors='replace')[-2000:]
            raise RuntimeError(f'PTB tokenizer failed ({self.java}, exit '
                               f'code {proc.returncode}): {err}')
        return proc.stdout.decode('utf-8').split('\n')


class JavaMeteor(Meteor):
    """pycocoevalcap's ``Meteor`` (METEOR 1.5) on an explicit java binary.

    One JVM per instance (:func:`shared_meteor` keeps one per process).
    Scoring is split in two steps so that subsets reuse the per-pair
    statistics: :meth:`segment_stats` (one ``SCORE`` line per pair) and
    :meth:`corpus_score` (one ``EVAL`` line over any list of stats), which
    is exactly what ``Meteor.compute_score`` sends. Every exchange holds a
    lock, and a watchdog kills a JVM that gives no answer for ``timeout``
    seconds: a dead or stuck JVM raises a ``RuntimeError`` with its stderr
    instead of hanging. :meth:`close` (or the context manager) stops it.

    Args:
        java (str): Path of the java binary.
        timeout (float): Seconds to wait for one answer from the JVM.
            Defaults to 300.
        max_heap (str): JVM heap limit, as in pycocoevalcap. Defaults to '2G'.
    """

    def __init__(self, java: str, timeout: float = 300., max_heap: str = '2G'):
        self.timeout = timeout
        self.lock = threading.Lock()
        self._stderr = tempfile.TemporaryFile()
        self.meteor_cmd = [
            java, '-Dfile.encoding=UTF-8', '-jar', f'-Xmx{max_heap}',
            os.path.join(_METEOR_DIR, METEOR_JAR), '-', '-', '-stdio', '-l',
            'en', '-norm'
        ]
        self.meteor_p = subprocess.Popen(
            self.meteor_cmd,
            cwd=_METEOR_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            preexec_fn=_ignore_sigterm)

    # -- protocol --------------------------------------------------------
    @staticmethod
    def _clean(sentence: str) -> str:
        # '|||' separates fields and a line break ends a request.
        sentence = one_line(sentence.replace('|||', ''))
        return sentence.replace('  ', ' ')

    def _exchange(self, requests: Sequence[str],
                  num_answers: int) -> List[str]:
        """Send request lines, read ``num_answers`` answer lines (pipelined:
        a thread writes while this one reads, so neither pipe fills up)."""
        proc = self.meteor_p
        if proc is None or proc.poll() is not None:
            raise RuntimeError('METEOR JVM is not running: '
                               f'{_stderr_tail(self._stderr)}')
        write_error = []

        def write():
            try:
                for start in range(0, len(requests), 1000):
                    chunk = requests[start:start + 1000]
                    proc.stdin.write(('\n'.join(chunk) + '\n').encode())
                proc.stdin.flush()
            except OSError as e:  # the JVM died: the reader sees EOF
                write_error.append(repr(e))

        writer = threading.Thread(target=write, daemon=True)
        answers = []
        with _Watchdog(proc, self.timeout) as watchdog:
            writer.start()
            for _ in range(num_answers):
                line = proc.stdout.readline()
                if not line.endswith(b'\n'):
                    break
                answers.append(line)
                watchdog.tick()
        writer.join()
        if len(answers) < num_answers:
            self.close()
            cause = (f'no answer for {self.timeout}s, killed'
                     if watchdog.fired else 'the JVM exited')
            raise RuntimeError(
                f'METEOR failed ({cause}; {" ".join(write_error)}): '
                f'{_stderr_tail(self._stderr)}')
        return [a.decode('utf-8').strip() for a in answers]

    def segment_stats(self, hypotheses: Sequence[str],
                      references: Sequence[Sequence[str]]) -> List[str]:
        """METEOR sufficient statistics of each hypothesis vs its
        references (the ``SCORE`` lines ``Meteor.compute_score`` sends)."""
        requests = [
            ' ||| '.join(['SCORE'] + [self._clean(r) for r in refs] +
                         [self._clean(hyp)])
            for hyp, refs in zip(hypotheses, references)
        ]
        with self.lock:
            return self._exchange(requests, len(requests))

    def corpus_score(self, stats: Sequence[str]) -> Tuple[float, List[float]]:
        """Corpus METEOR and per-segment scores from segment statistics
        (the ``EVAL`` line of ``Meteor.compute_score``)."""
        request = ' ||| '.join(['EVAL'] + list(stats))
        with self.lock:
            answers = self._exchange([request], len(stats) + 1)
        return float(answers[-1]), [float(a) for a in answers[:-1]]

    # -- lifetime --------------------------------------------------------
    def close(self) -> None:
        """Stop the JVM (idempotent)."""
        proc, self.meteor_p = getattr(self, 'meteor_p', None), None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        proc.kill()
        proc.wait()

    def __enter__(self) -> 'JavaMeteor':
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


#: One METEOR JVM per java binary for the whole process
#: (:func:`shared_meteor`).
_SHARED_METEORS: Dict[str, JavaMeteor] = {}
_SHARED_LOCK = threading.Lock()


def shared_meteor(java: str, timeout: float = 600.) -> JavaMeteor:
    """The process's METEOR JVM on ``java``, started at the first call and
    kept for every later evaluation (starting it and loading its paraphrase
    table takes seconds to tens of seconds, each validation would pay it
    again); a JVM that died is started anew. Closed when Python exits.

    Args:
        java (str): Path of the java binary.
        timeout (float): Seconds to wait for one answer of the JVM.
    """
    with _SHARED_LOCK:
        meteor = _SHARED_METEORS.get(java)
        if (meteor is None or meteor.meteor_p is None
                or meteor.meteor_p.poll() is not None):
            meteor = _SHARED_METEORS[java] = JavaMeteor(java, timeout)
        meteor.timeout = timeout
        return meteor


@atexit.register
def close_shared_meteors() -> None:
    """Stop every shared METEOR JVM (at exit; a later call starts anew)."""
    with _SHARED_LOCK:
        for meteor in _SHARED_METEORS.values():
            meteor.close()
        _SHARED_METEORS.clear()
