"""One grpcio channel (one HTTP/2 connection) carrying hostile Matchmaker calls and game-server
link sequences together, as a gateway or a Python game server would multiplex them.

Usage: python3 shared_connection.py PLAN.json  (prints a JSON report on stdout)

The plan is made by the TypeScript test (messages already encoded, base64), so this client needs
grpcio only, no generated code: every call is generic, bytes in and bytes out. The few link
replies it must act on (a Keepalive to answer, a CreateGame to confirm) are read with a minimal
protobuf field reader below.
"""

import base64
import json
import queue
import sys
import threading
import time

import grpc


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def fields(buf):
    """Top-level fields of a protobuf message: {number: [value, ...]} (bytes or int)."""
    out, i = {}, 0
    while i < len(buf):
        tag, i = varint(buf, i)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            value, i = bytes(buf[i:i + n]), i + n
        elif wire == 1:
            value, i = bytes(buf[i:i + 8]), i + 8
        elif wire == 5:
            value, i = bytes(buf[i:i + 4]), i + 4
        else:
            raise ValueError('wire type %d' % wire)
        out.setdefault(number, []).append(value)
    return out


def encode_varint(value):
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def length_delimited(number, payload):
    return encode_varint((number << 3) | 2) + encode_varint(len(payload)) + payload


def keepalive_ack(sequence):
    # ServerMessage.keepalive_ack (11) { sequence (1) }
    inner = encode_varint(1 << 3) + encode_varint(sequence)
    return length_delimited(11, inner)


def game_created(request_id, game_id):
    # ServerMessage.game_created (2) { request_id (1), game_id (2) }
    inner = length_delimited(1, request_id) + length_delimited(2, game_id)
    return length_delimited(2, inner)


def code_name(code):
    return code.name if code is not None else 'NONE'


class Link:
    """A game-server link stream whose writes come from a queue (None ends them)."""

    def __init__(self, channel, path, timeout=None):
        self.out = queue.Queue()
        self.replies = queue.Queue()
        self.call = channel.stream_stream(path)(iter(self.out.get, None), timeout=timeout)
        self.code = None
        self.details = ''
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for reply in self.call:
                self.replies.put(reply)
        except grpc.RpcError as e:
            self.code, self.details = e.code(), e.details()
        else:
            self.code = grpc.StatusCode.OK
        self.replies.put(None)

    def write(self, message):
        self.out.put(message)

    def end(self):
        self.out.put(None)


def bystander(channel, plan, report, stop):
    """A game server that stays connected all along: answers keepalives, confirms every creation."""
    link = Link(channel, plan['linkPath'])
    link.write(base64.b64decode(plan['bystanderHello']))
    games = 0
    while not stop.is_set():
        try:
            reply = link.replies.get(timeout=0.1)
        except queue.Empty:
            continue
        if reply is None:
            break
        orders = [reply]
        top = fields(reply)
        for batch in top.get(20, []):
            orders = fields(batch).get(1, [])
        for order in orders:
            f = fields(order)
            if 1 in f:
                report['bystanderWelcomed'] = True
            if 4 in f:
                link.write(keepalive_ack(fields(f[4][0]).get(1, [0])[0]))
            if 2 in f:
                request_id = fields(f[2][0])[1][0]
                games += 1
                link.write(game_created(request_id, b'bystander-game-%d' % games))
    report['bystanderEnded'] = code_name(link.code) if link.code is not None else None
    link.end()


def hostile(channel, call, codes, lock):
    path, messages = call['path'], [base64.b64decode(m) for m in call['messages']]
    timeout = call['deadlineMs'] / 1000
    code = None
    try:
        if call['shape'] == 'unary':
            channel.unary_unary(path)(messages[0], timeout=timeout)
            code = grpc.StatusCode.OK
        elif call['shape'] == 'server':
            responses = channel.unary_stream(path)(messages[0], timeout=timeout)
            if call['read']:
                for _ in responses:
                    pass
                code = grpc.StatusCode.OK
            else:
                # Left unread, then given up on: the client cancels.
                time.sleep(call.get('cancelAfterMs', 0) / 1000)
                responses.cancel()
                code = grpc.StatusCode.CANCELLED
        else:
            responses = channel.stream_stream(path)(iter(messages), timeout=timeout)
            if call['read']:
                for _ in responses:
                    pass
                code = grpc.StatusCode.OK
            else:
                time.sleep(call.get('cancelAfterMs', 0) / 1000)
                responses.cancel()
                code = grpc.StatusCode.CANCELLED
    except grpc.RpcError as e:
        code = e.code()
    with lock:
        codes[code_name(code)] = codes.get(code_name(code), 0) + 1


def link_sequence(channel, plan, sequence):
    """Hello, wait for the welcome, the rest of the sequence, end: how long each step took."""
    started = time.monotonic()
    link = Link(channel, plan['linkPath'], timeout=plan['linkDeadlineMs'] / 1000)
    messages = [base64.b64decode(m) for m in sequence['messages']]
    link.write(messages[0])
    welcome_ms = None
    try:
        first = link.replies.get(timeout=plan['linkDeadlineMs'] / 1000)
        if first is not None:
            welcome_ms = (time.monotonic() - started) * 1000
    except queue.Empty:
        pass
    for m in messages[1:]:
        link.write(m)
    link.end()
    link.thread.join(plan['linkDeadlineMs'] / 1000)
    return {'welcomeMs': welcome_ms, 'code': code_name(link.code), 'details': link.details, 'totalMs': (time.monotonic() - started) * 1000}


def main():
    plan = json.load(open(sys.argv[1]))
    # One channel, one subchannel: every call below shares one HTTP/2 connection while it lasts.
    channel = grpc.insecure_channel(plan['address'], options=[('grpc.use_local_subchannel_pool', 1)])
    report = {'hostile': {}, 'links': [], 'bystanderWelcomed': False, 'bystanderEnded': None}
    stop = threading.Event()
    keeper = threading.Thread(target=bystander, args=(channel, plan, report, stop), daemon=True)
    keeper.start()
    deadline = time.monotonic() + 10
    while not report['bystanderWelcomed'] and time.monotonic() < deadline:
        time.sleep(0.01)
    print('bystander welcomed', file=sys.stderr, flush=True)

    # Hostile calls in batches, and the link sequences one after another, at the same time.
    def links():
        for sequence in plan['links']:
            report['links'].append(link_sequence(channel, plan, sequence))
    linker = threading.Thread(target=links)
    linker.start()
    lock = threading.Lock()
    calls = plan['hostile']
    for i in range(0, len(calls), plan['hostileConcurrency']):
        batch = [threading.Thread(target=hostile, args=(channel, c, report['hostile'], lock)) for c in calls[i:i + plan['hostileConcurrency']]]
        for t in batch:
            t.start()
        for t in batch:
            t.join()
    print('hostile calls done: %s' % report['hostile'], file=sys.stderr, flush=True)
    linker.join()
    print('link sequences done', file=sys.stderr, flush=True)

    try:
        updates = list(channel.unary_stream(plan['matchmakerFindPath'])(base64.b64decode(plan['find']), timeout=plan['linkDeadlineMs'] / 1000))
        report['find'] = {'code': 'OK', 'updates': [base64.b64encode(u).decode() for u in updates]}
    except grpc.RpcError as e:
        report['find'] = {'code': code_name(e.code()), 'details': e.details()}
    stop.set()
    keeper.join(2)
    channel.close()
    print(json.dumps(report))


main()
