/**
 * What the memory Redis must answer exactly as redis-server does: one table of cases, each a
 * script of calls whose replies (and errors) make a transcript. Values that come from the clock
 * (TIME, fencing tokens, PTTL, stream ids from "*") are noted by their shape or by how they
 * compare, never as they are.
 */
import type { RedisClient } from '../../../../src/redis/script-set.js';
import { plain, runBatchScript, runScript, type ContractTarget, type Persistence } from './contract-targets.js';

export class Transcript {
  readonly lines: unknown[] = [];
  constructor(readonly target: ContractTarget) {}

  /** Records what a call answered (or its error) and returns the answer (undefined on error). */
  async record<T>(label: string, call: Promise<T>, read: (value: T) => unknown = (v) => v): Promise<T | undefined> {
    try {
      const value = await call;
      this.lines.push([label, plain(read(value))]);
      return value;
    } catch (error) {
      this.lines.push([label, plain(error)]);
      return undefined;
    }
  }

  note(label: string, value: unknown): void {
    this.lines.push([label, value]);
  }
}

export interface ContractCase {
  readonly name: string;
  readonly persistence?: Persistence;
  run(t: Transcript, r: RedisClient): Promise<void>;
}

const isToken = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 1e15;
const call = (r: RedisClient, ...args: (string | number)[]) => r.call(args[0] as string, ...args.slice(1));

export const CASES: ContractCase[] = [
  {
    name: 'strings: SET with NX, XX, GET, PX; GET, MGET, INCR, INCRBY, DEL, EXISTS, TYPE and their errors',
    async run(t, r) {
      await t.record('set', r.set('s:a', 'one'));
      await t.record('set nx taken', r.set('s:a', 'two', 'NX'));
      await t.record('set nx get taken', r.set('s:a', 'two', 'NX', 'GET'));
      await t.record('set nx get free', r.set('s:b', 'bee', 'NX', 'GET'));
      await t.record('set xx missing', r.set('s:c', 'x', 'XX'));
      await t.record('set xx get', r.set('s:a', 'three', 'XX', 'GET'));
      await t.record('set px', r.set('s:px', 'v', 'PX', 60_000));
      await t.record('pttl', r.pttl('s:px'), (ms) => ms > 59_000 && ms <= 60_000);
      await t.record('ttl', r.ttl('s:px'));
      await t.record('set ex', r.set('s:ex', 'v', 'EX', 100));
      await t.record('ttl ex', r.ttl('s:ex'));
      await t.record('set drops ttl', r.set('s:px', 'w'));
      await t.record('pttl after set', r.pttl('s:px'));
      await t.record('set px 0', call(r, 'SET', 's:z', 'v', 'PX', 0));
      await t.record('set px text', call(r, 'SET', 's:z', 'v', 'PX', 'soon'));
      await t.record('set nx xx', call(r, 'SET', 's:z', 'v', 'NX', 'XX'));
      await t.record('set arity', call(r, 'SET', 's:z'));
      await t.record('mget', r.mget('s:a', 's:none', 's:b'));
      await t.record('incr', r.incr('s:n'));
      await t.record('incrby', r.incrby('s:n', 41));
      await t.record('incrby negative', r.incrby('s:n', -50));
      await t.record('incr text', r.incr('s:a'));
      await t.record('incrby text', call(r, 'INCRBY', 's:n', '1.5'));
      await t.record('hset for wrongtype', r.hset('s:h', 'f', 'v'));
      await t.record('get wrongtype', r.get('s:h'));
      await t.record('mget wrongtype', r.mget('s:h', 's:a'));
      await t.record('set get wrongtype', r.set('s:h', 'v', 'GET'));
      await t.record('type', Promise.all(['s:a', 's:h', 's:none'].map((k) => r.type(k))));
      await t.record('exists', r.exists('s:a', 's:a', 's:none', 's:h'));
      await t.record('del', r.del('s:a', 's:none', 's:h'));
      await t.record('exists after del', r.exists('s:a', 's:h'));
      await t.record('unknown command', call(r, 'NOPE', 'x', 1));
      await t.record('get arity', call(r, 'GET'));
    },
  },
  {
    name: 'expiry: a key past its time is gone to every command; PEXPIRE, PERSIST, TTL',
    async run(t, r) {
      await t.record('set px', r.set('e:k', 'v', 'PX', 30));
      await t.record('pexpire', r.pexpire('e:other', 100));
      await t.record('set', r.set('e:kept', 'v'));
      await t.record('ttl none', r.ttl('e:kept'));
      await t.record('pexpire kept', r.pexpire('e:kept', 100_000));
      await t.record('pexpire nx', call(r, 'PEXPIRE', 'e:kept', 5, 'NX'));
      await t.record('persist', r.persist('e:kept'));
      await t.record('pttl persisted', r.pttl('e:kept'));
      await t.target.expire('e:k');
      await t.record('get expired', r.get('e:k'));
      await t.record('exists expired', r.exists('e:k'));
      await t.record('pttl expired', r.pttl('e:k'));
      await t.record('set nx after expiry', r.set('e:k', 'again', 'PX', 30, 'NX'));
      await t.record('pexpire 0 deletes', r.pexpire('e:k', 0));
      await t.record('get', r.get('e:k'));
    },
  },
  {
    name: 'hashes: HSET, HGET, HGETALL (named and raw), HMGET, HLEN, HKEYS, HEXISTS, HDEL, HINCRBY, HSCAN',
    async run(t, r) {
      await t.record('hset', r.hset('h:a', 'f1', 'v1', 'f2', 'v2'));
      await t.record('hset again', r.hset('h:a', 'f2', 'v2b', 'f3', 'v3'));
      await t.record('hset odd', call(r, 'HSET', 'h:a', 'f1', 'v1', 'f2'));
      await t.record('hget', r.hget('h:a', 'f2'));
      await t.record('hget missing', r.hget('h:a', 'nope'));
      await t.record('hgetall', r.hgetall('h:a'));
      await t.record('hgetall raw', call(r, 'HGETALL', 'h:a'));
      await t.record('hgetall missing', r.hgetall('h:none'));
      await t.record('hmget', r.hmget('h:a', 'f1', 'nope', 'f3'));
      await t.record('hlen', r.hlen('h:a'));
      await t.record('hkeys', r.hkeys('h:a'));
      await t.record('hexists', Promise.all([r.hexists('h:a', 'f1'), r.hexists('h:a', 'zz')]));
      await t.record('hincrby', r.hincrby('h:a', 'n', 5));
      await t.record('hincrby text', r.hincrby('h:a', 'f1', 1));
      await t.record('hscan', r.hscan('h:a', 0));
      await t.record('hdel', r.hdel('h:a', 'f1', 'nope'));
      await t.record('hdel all', r.hdel('h:a', 'f2', 'f3', 'n'));
      await t.record('exists emptied', r.exists('h:a'));
      await t.record('set for wrongtype', r.set('h:s', 'x'));
      await t.record('hget wrongtype', r.hget('h:s', 'f'));
    },
  },
  {
    name: 'sorted sets: ZADD and its options, ZRANGE (index, BYSCORE, REV, LIMIT, WITHSCORES), ZRANGEBYSCORE, ZREVRANGE, ZRANK, ZSCORE, ZCARD, ZREMRANGEBYSCORE, ZREM',
    async run(t, r) {
      await t.record('zadd', r.zadd('z:a', 3, 'c', 1, 'a', 2, 'b', 2, 'bb', 0.1, 'tenth', -5, 'neg'));
      await t.record('zadd update', r.zadd('z:a', 4, 'c', 9, 'new'));
      await t.record('zadd ch', r.zadd('z:a', 'CH', 5, 'c', 9, 'new', 10, 'newer'));
      await t.record('zadd nx', r.zadd('z:a', 'NX', 100, 'a', 6, 'nx'));
      await t.record('zadd xx', r.zadd('z:a', 'XX', 1.5, 'a', 7, 'absent'));
      await t.record('zadd gt', r.zadd('z:a', 'GT', 'CH', 0, 'a', 20, 'nx'));
      await t.record('zadd nx xx', call(r, 'ZADD', 'z:a', 'NX', 'XX', 1, 'a'));
      await t.record('zadd bad score', call(r, 'ZADD', 'z:a', 'high', 'a'));
      await t.record('zadd odd', call(r, 'ZADD', 'z:a', 1, 'a', 2));
      await t.record('zadd incr', r.zadd('z:a', 'INCR', 2.25, 'a'));
      await t.record('zrange', r.zrange('z:a', '0', '-1'));
      await t.record('zrange withscores', r.zrange('z:a', '0', '-1', 'WITHSCORES'));
      await t.record('zrange withscores raw', call(r, 'ZRANGE', 'z:a', 0, 2, 'WITHSCORES'));
      await t.record('zrange slice', r.zrange('z:a', '-3', '-2'));
      await t.record('zrange out of range', r.zrange('z:a', '50', '60'));
      await t.record('zrange byscore', r.zrange('z:a', '(2', '+inf', 'BYSCORE', 'LIMIT', 1, 2));
      await t.record('zrange byscore rev', r.zrange('z:a', 10, '-inf', 'BYSCORE', 'REV', 'WITHSCORES'));
      await t.record('zrange rev', r.zrange('z:a', '0', '1', 'REV'));
      await t.record('zrange limit without byscore', call(r, 'ZRANGE', 'z:a', 0, 1, 'LIMIT', 0, 1));
      await t.record('zrangebyscore', r.zrangebyscore('z:a', '-inf', '(2'));
      await t.record('zrangebyscore withscores limit', r.zrangebyscore('z:a', 0, 100, 'WITHSCORES', 'LIMIT', 1, 3));
      await t.record('zrangebyscore bad', call(r, 'ZRANGEBYSCORE', 'z:a', 'low', 2));
      await t.record('zrevrange', r.zrevrange('z:a', 0, 2, 'WITHSCORES'));
      await t.record('zrank', Promise.all([r.zrank('z:a', 'b'), r.zrank('z:a', 'nobody')]));
      await t.record('zscore', Promise.all([r.zscore('z:a', 'tenth'), r.zscore('z:a', 'b'), r.zscore('z:a', 'neg'), r.zscore('z:a', 'nobody')]));
      await t.record('zcard', r.zcard('z:a'));
      await t.record('zremrangebyscore', r.zremrangebyscore('z:a', '-inf', '(2'));
      await t.record('zrem', r.zrem('z:a', 'b', 'nobody'));
      await t.record('after', r.zrange('z:a', '0', '-1', 'WITHSCORES'));
      await t.record('zrem all', r.zrem('z:a', 'bb', 'c', 'nx', 'new', 'newer'));
      await t.record('exists emptied', r.exists('z:a'));
    },
  },
  {
    name: 'sets and lists: SADD, SREM, SMEMBERS, SCARD, SISMEMBER; LPUSH, RPUSH, LRANGE, LTRIM, LLEN',
    async run(t, r) {
      await t.record('sadd', r.sadd('c:s', 'x', 'y', 'x', 'z'));
      await t.record('srem', r.srem('c:s', 'y', 'nope'));
      await t.record('smembers', r.smembers('c:s'), (m: string[]) => [...m].sort());
      await t.record('scard', r.scard('c:s'));
      await t.record('sismember', Promise.all([r.sismember('c:s', 'x'), r.sismember('c:s', 'y')]));
      await t.record('lpush', r.lpush('c:l', 'a', 'b', 'c'));
      await t.record('rpush', r.rpush('c:l', 'd', 'e'));
      await t.record('lrange', r.lrange('c:l', 0, -1));
      await t.record('lrange slice', r.lrange('c:l', 1, -2));
      await t.record('ltrim', r.ltrim('c:l', 0, 2));
      await t.record('llen', r.llen('c:l'));
      await t.record('lrange after', r.lrange('c:l', 0, 10));
      await t.record('sadd wrongtype', r.sadd('c:l', 'x'));
    },
  },
  {
    name: 'streams: XADD ids and trimming, XRANGE, XREVRANGE, XREAD (named and raw), XLEN, XDEL, XTRIM',
    async run(t, r) {
      await t.record('xadd', r.xadd('x:s', '1-1', 'f', 'v', 'g', 'w'));
      await t.record('xadd equal', r.xadd('x:s', '1-1', 'f', 'v'));
      await t.record('xadd 0-0', r.xadd('x:new', '0-0', 'f', 'v'));
      await t.record('xadd seq', r.xadd('x:s', '1-*', 'f', 'v2'));
      await t.record('xadd ms', r.xadd('x:s', '5', 'f', 'v3'));
      await t.record('xadd odd', call(r, 'XADD', 'x:s', '6-0', 'f'));
      await t.record('xadd star', r.xadd('x:s', '*', 'f', 'now'), (id) => /^\d{13}-0$/.test(String(id)));
      await t.record('xadd nomkstream', r.xadd('x:none', 'NOMKSTREAM', '*', 'f', 'v'));
      await t.record('xrange', r.xrange('x:s', '-', '5'));
      await t.record('xrange count', r.xrange('x:s', '1-2', '+', 'COUNT', 1));
      await t.record('xrange exclusive', r.xrange('x:s', '(1-1', '(5-0'));
      await t.record('xrevrange', r.xrevrange('x:s', '5', '-', 'COUNT', 2));
      await t.record('xread', r.xread('COUNT', 2, 'STREAMS', 'x:s', '1-1'));
      await t.record('xread raw', call(r, 'XREAD', 'STREAMS', 'x:s', 'x:none', '1-2', '0'), (reply) => (reply as unknown[]).slice(0, 1));
      await t.record('xread nothing', r.xread('STREAMS', 'x:s', '$'));
      await t.record('xlen', r.xlen('x:s'));
      await t.record('xdel', r.xdel('x:s', '1-2', '9-9'));
      await t.record('xtrim', r.xtrim('x:s', 'MAXLEN', 1));
      await t.record('xtrim approximate', r.xtrim('x:s', 'MAXLEN', '~', 0));
      await t.record('xlen after', r.xlen('x:s'));
      await t.record('xadd maxlen approximate', r.xadd('x:s', 'MAXLEN', '~', 1, '9999999999999-0', 'f', 'v'));
      await t.record('xlen approximate kept', r.xlen('x:s'));
    },
  },
  {
    name: 'consumer groups: XGROUP CREATE, XREADGROUP (new and pending), XACK, XAUTOCLAIM with deleted entries, NOGROUP and BUSYGROUP',
    async run(t, r) {
      await t.record('create without stream', r.xgroup('CREATE', 'g:s', 'owner', '0'));
      await t.record('create', r.xgroup('CREATE', 'g:s', 'owner', '0', 'MKSTREAM'));
      await t.record('create again', r.xgroup('CREATE', 'g:s', 'owner', '0', 'MKSTREAM'));
      for (const n of [1, 2, 3, 4]) await t.record(`xadd ${n}`, r.xadd('g:s', `${n}-0`, 'm', `e${n}`));
      await t.record('read new', r.xreadgroup('GROUP', 'owner', 'a', 'COUNT', 2, 'STREAMS', 'g:s', '>'));
      await t.record('read new raw', call(r, 'XREADGROUP', 'GROUP', 'owner', 'b', 'COUNT', 1, 'STREAMS', 'g:s', '>'));
      await t.record('read pending', r.xreadgroup('GROUP', 'owner', 'a', 'STREAMS', 'g:s', '0'));
      await t.record('no group', r.xreadgroup('GROUP', 'nobody', 'a', 'STREAMS', 'g:s', '>'));
      await t.record('ack', r.xack('g:s', 'owner', '1-0', '9-0'));
      await t.record('xdel a pending entry', r.xdel('g:s', '2-0'));
      await t.record('pending after ack and delete', r.xreadgroup('GROUP', 'owner', 'a', 'STREAMS', 'g:s', '0'));
      await t.record('autoclaim none idle enough', call(r, 'XAUTOCLAIM', 'g:s', 'owner', 'c', 3_600_000, '0', 'COUNT', 10));
      await t.record('autoclaim', call(r, 'XAUTOCLAIM', 'g:s', 'owner', 'c', 0, '0', 'COUNT', 10));
      await t.record('autoclaim count', call(r, 'XAUTOCLAIM', 'g:s', 'owner', 'd', 0, '0', 'COUNT', 1, 'JUSTID'));
      await t.record('the rest', r.xreadgroup('GROUP', 'owner', 'a', 'STREAMS', 'g:s', '>'));
      await t.record('nothing new', r.xreadgroup('GROUP', 'owner', 'a', 'STREAMS', 'g:s', '>'));
      const inbox = 'gf:{relay}:inbox';
      await t.record('relay inbox group', r.xgroup('CREATE', inbox, 'owner', '0', 'MKSTREAM'));
      const ids = [await r.xadd(inbox, '1-1', 'm', 'x'), await r.xadd(inbox, '1-2', 'm', 'y')] as string[];
      await t.record('read inbox', r.xreadgroup('GROUP', 'owner', 'n1', 'STREAMS', inbox, '>'));
      await t.record('fence', r.set('gf:{relay}:fence', '7'));
      await t.record('commit acks', runBatchScript(r, 'gfRelayCommit', ['gf:{relay}:fence', 'gf:{relay}:tickets', inbox], [7, 'owner', 1000, 1000, 'C', 2, ...ids]));
      await t.record('inbox emptied', r.xlen(inbox));
      await t.record('nothing pending', r.xreadgroup('GROUP', 'owner', 'n1', 'STREAMS', inbox, '0'));
    },
  },
  {
    name: 'pub/sub: PUBLISH counts the subscribers it reached, and each gets the message in order',
    async run(t, r) {
      const subscriber = (await t.target.client(1)) as unknown as {
        subscribe(...c: string[]): Promise<number>;
        unsubscribe(...c: string[]): Promise<number>;
        on(e: 'message', f: (c: string, m: string) => void): void;
      };
      const heard: string[] = [];
      const both = new Promise<void>((resolve) =>
        subscriber.on('message', (channel, message) => {
          heard.push(`${channel}:${message}`);
          if (heard.length === 2) resolve();
        }),
      );
      await t.record('subscribe', subscriber.subscribe('ps:a', 'ps:b'));
      await t.record('publish to nobody', r.publish('ps:none', 'x'));
      await t.record('publish a', r.publish('ps:a', 'one'));
      await t.record('publish b', r.publish('ps:b', 'two'));
      await both;
      t.note('heard', heard);
      await t.record('unsubscribe all', subscriber.unsubscribe());
      await t.record('publish after', r.publish('ps:a', 'three'));
    },
  },
  {
    name: 'MULTI/EXEC and pipelines: queued, run whole, errors per command as ioredis reports them; EXECABORT',
    async run(t, r) {
      await t.record('exec', r.multi().set('m:a', '1').incr('m:a').hset('m:a', 'f', 'v').get('m:a').hgetall('m:none').exec());
      await t.record('exec abort', r.multi().set('m:b', '1').call('NOPE').exec());
      await t.record('not set by the aborted', r.get('m:b'));
      await t.record('pipeline', r.pipeline().set('m:c', 'x').incr('m:c').zadd('m:z', 1, 'a').zrange('m:z', '0', '-1', 'WITHSCORES').exec());
    },
  },
  {
    name: 'scripts: Lua <-> reply conversions, error_reply and status_reply, call and pcall errors with their place, read-only globals, NOSCRIPT, SCRIPT LOAD',
    async run(t, r) {
      const evaluate = (label: string, lua: string, keys: string[] = [], ...argv: (string | number)[]) => t.record(label, r.eval(lua, keys.length, ...keys, ...argv));
      await evaluate('conversions', "return {1, 2.9, -3.7, 'x', false, true, {ok='y'}, {1, {2}}, nil, 5}");
      await evaluate('number', 'return 1796684021088156');
      await evaluate('huge', 'return 1e300');
      await evaluate('negative fraction', 'return -0.5');
      await evaluate('false', 'return false');
      await evaluate('true', 'return true');
      await evaluate('nil', 'return nil');
      await evaluate('status', "return redis.status_reply('FINE')");
      await evaluate('status table', "return {ok='ALSO'}");
      await evaluate('error_reply', "return redis.error_reply('boom')");
      await evaluate('error_reply with code', "return redis.error_reply('MYCODE went wrong')");
      await evaluate('err table', "return {err='raw'}");
      await evaluate('error in array', "return {1, {err='inner'}}");
      await evaluate('replies in Lua', "redis.call('SET', KEYS[1], 'v'); local s = redis.call('SET', KEYS[1], 'w'); local n = redis.call('GET', 'sc:none'); return {type(s), s.ok, type(n), tostring(n)}", ['sc:k']);
      await evaluate('arrays in Lua', "redis.call('ZADD', KEYS[1], 1.5, 'a', 2, 'b'); redis.call('HSET', KEYS[2], 'f', 'v'); return {redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'), redis.call('HGETALL', KEYS[2]), redis.call('ZSCORE', KEYS[1], 'a')}", ['sc:z', 'sc:h']);
      await evaluate('number arguments', "redis.call('SET', KEYS[1], 0.1); redis.call('SET', KEYS[2], 3.0); redis.call('SET', KEYS[3], 1e20); return redis.call('MGET', KEYS[1], KEYS[2], KEYS[3])", ['sc:f1', 'sc:f2', 'sc:f3']);
      await evaluate('Lua 5.1 numbers', "return {tostring(1e15), tostring(123456789012), tostring(0.1), tostring(2^53), tostring(7/2), tostring(10/2), 3 .. '', string.format('%.0f', 1796684021088156)}");
      await evaluate('large products stay exact', "local t = {'1796684021', '88156'}; return string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))");
      await evaluate('unpack', "return {unpack({1, 2, 3})}");
      await evaluate('pcall', "local e = redis.pcall('INCR', KEYS[1]); return {type(e), e.err}", ['sc:h']);
      await evaluate('call error', "local a = 1\nlocal b = 2\nreturn redis.call('INCR', KEYS[1])", ['sc:h']);
      await evaluate('call error in a function', "local function f(k)\n  return redis.call('INCR', k)\nend\nreturn f(KEYS[1])", ['sc:h']);
      await evaluate('error()', "local a = 1\nerror('custom')");
      await evaluate('error table', "error({err='MINE table'})");
      await evaluate('bad argument', "return redis.call('GET', {})");
      await evaluate('no arguments', 'return redis.call()');
      await evaluate('unknown command', "return redis.call('NOPE')");
      await evaluate('arity from script', "return redis.call('GET')");
      await evaluate('empty unpack', "return redis.call('HDEL', 'sc:h', unpack({}))");
      await evaluate('not allowed', "return redis.call('EVAL', 'return 1', 0)");
      await evaluate('global write', 'x = 1');
      await evaluate('global read', 'return y');
      await evaluate('cjson', "return cjson.encode({v=1, p={{'a', 2, 'x/y', false}}, g='z', f=1.5, e={}})").then(() => {
        const last = t.lines.pop() as [string, string];
        t.note(last[0], JSON.parse(last[1]));
      });
      await t.record('numkeys negative', r.eval('return 1', -1));
      await t.record('numkeys too many', r.eval('return 1', 3, 'a'));
      await t.record('numkeys text', call(r, 'EVAL', 'return 1', 'x'));
      await t.record('evalsha unknown', r.evalsha('0000000000000000000000000000000000000000', 0));
      const sha = (await t.record('script load', r.script('LOAD', "return 'loaded'"))) as string;
      await t.record('evalsha loaded', r.evalsha(sha, 0));
      await t.record('script exists', r.script('EXISTS', sha, '0000000000000000000000000000000000000000'));
      await t.record('script does not compile', r.script('LOAD', 'return +'), (v) => v);
      await t.record('time', r.eval("return redis.call('TIME')", 0), (time) => (time as string[]).map((x) => /^\d+$/.test(x)));
    },
  },
  {
    name: 'leases (lease-acquire-2, lease-renew-1, lease-release-1): one holder, tokens only go up, renew and release only by the holder',
    async run(t, r) {
      const keys = ['gf:{c:lease}:lease', 'gf:{c:lease}:fence'];
      const acquire = (node: string, ms = 60_000) => runScript<[number, number]>(r, 'gfLeaseAcquire', keys, [node, ms]);
      const first = await t.record('acquire free', acquire('a'), ([held, token]) => [held, isToken(token)]);
      const refused = await t.record('acquire held', acquire('b'), ([held, left]) => [held, left > 59_000 && left <= 60_000]);
      const again = await t.record('acquire own again', acquire('a'), ([held, token]) => [held, isToken(token)]);
      t.note('a new term, a larger token', again![1] > first![1] && refused !== undefined);
      await t.record('renew with the old token', runScript(r, 'gfLeaseRenew', [keys[0]!], ['a', first![1], 60_000]));
      await t.record('renew', runScript(r, 'gfLeaseRenew', [keys[0]!], ['a', again![1], 60_000]));
      await t.record('renew by another', runScript(r, 'gfLeaseRenew', [keys[0]!], ['b', again![1], 60_000]));
      await t.record('release by another', runScript(r, 'gfLeaseRelease', [keys[0]!], ['b', again![1]]));
      await t.record('release', runScript(r, 'gfLeaseRelease', [keys[0]!], ['a', again![1]]));
      await t.record('lease gone', r.get(keys[0]!));
      const next = await t.record('acquire released', acquire('b'), ([held, token]) => [held, isToken(token)]);
      t.note('tokens only go up', next![1] > again![1]);
      await t.record('fence holds the last token', r.get(keys[1]!), (v) => v === String(next![1]));
      await t.record('lease value', r.get(keys[0]!), (v) => v === `${next![1]}:b`);
    },
  },
  {
    name: 'shard tickets (shard-ticket-store-2) are fenced by the term; a restart without persistence loses leases and fence counters, and tokens still go up',
    persistence: 'none',
    async run(t, r) {
      const shard = ['gf:{s:7}:lease', 'gf:{s:7}:fence'];
      const tickets = 'gf:{s:7}:tickets';
      const old = await t.record('acquire', runScript<[number, number]>(r, 'gfLeaseAcquire', shard, ['old', 60_000]), ([held]) => held);
      await t.record('store', runScript(r, 'gfShardTicketStore', [shard[0]!, tickets], [old![1], 't1', 'queued']));
      await t.record('store stale', runScript(r, 'gfShardTicketStore', [shard[0]!, tickets], [old![1] - 1, 't2', 'stale']));
      await t.record('remove', runScript(r, 'gfShardTicketStore', [shard[0]!, tickets], [old![1], 't9', '']));
      await t.record('tickets', r.hgetall(tickets));
      await t.target.restart();
      await t.record('dbsize after restart', r.dbsize());
      await t.record('renew old term', runScript(r, 'gfLeaseRenew', [shard[0]!], ['old', old![1], 60_000]));
      await t.record('store old term', runScript(r, 'gfShardTicketStore', [shard[0]!, tickets], [old![1], 't1', 'late']));
      const fresh = await t.record('acquire after restart', runScript<[number, number]>(r, 'gfLeaseAcquire', shard, ['new', 60_000]), ([held]) => held);
      t.note('the new token is larger', fresh![1] > old![1]);
      await t.record('store new term', runScript(r, 'gfShardTicketStore', [shard[0]!, tickets], [fresh![1], 't3', 'restored']));
      await t.record('tickets after', r.hgetall(tickets));
    },
  },
  {
    name: 'a restart with an append-only file fsynced always keeps every acknowledged write; the script cache is gone and defined scripts reload',
    persistence: 'all',
    async run(t, r) {
      const keys = ['gf:{s:3}:lease', 'gf:{s:3}:fence'];
      const term = await t.record('acquire', runScript<[number, number]>(r, 'gfLeaseAcquire', keys, ['a', 60_000]), ([held]) => held);
      await t.record('hset', r.hset('p:h', 'f', 'v'));
      await t.record('set px', r.set('p:px', 'v', 'PX', 60_000));
      const sha = await r.script('LOAD', 'return 7');
      await t.target.restart();
      await t.record('script cache emptied', r.script('EXISTS', sha as string));
      await t.record('renew after restart', runScript(r, 'gfLeaseRenew', [keys[0]!], ['a', term![1], 60_000]));
      await t.record('hgetall', r.hgetall('p:h'));
      await t.record('expiry kept', r.pttl('p:px'), (ms) => ms > 50_000 && ms <= 60_000);
    },
  },
  {
    name: 'player claims (player-claims-n): a party whole or not at all, retries, conflicts, releases only by the holder',
    async run(t, r) {
      const claims = (ops: [string, string][], ms = 60_000) => runBatchScript<string[]>(r, 'gfPlayerClaims', ops.map(([k]) => k), [ms, ...ops.map(([, op]) => op)]);
      const p = (id: string) => `gf:{claims:0.0}:player:${id}`;
      const tk = (id: string) => `gf:{claims:0.0}:ticket:${id}`;
      await t.record('claim a party', claims([[p('a'), '+0:t1'], [p('b'), '+0:t1'], [tk('t1'), '+0:t1']]));
      await t.record('retry', claims([[p('a'), '+0:t1'], [p('b'), '+0:t1'], [tk('t1'), '+0:t1']]));
      await t.record('conflict gives back what it took', claims([[p('c'), '+0:t2'], [p('b'), '+0:t2'], [tk('t2'), '+0:t2']]));
      await t.record('c stays free', r.get(p('c')));
      await t.record('release by another', claims([[p('a'), '-0:t2']]));
      await t.record('a still t1', r.get(p('a')));
      await t.record('one tick: release then claim', claims([[p('a'), '-0:t1'], [p('a'), '+3:t4'], [tk('t4'), '+3:t4'], [p('b'), '+3:t5']]));
      await t.record('holders', r.mget(p('a'), p('b'), tk('t4')));
      await t.record('claim ttl', r.pttl(p('a')), (ms) => ms > 59_000 && ms <= 60_000);
      await t.record('short claim', claims([[p('s'), '+0:t6']], 20));
      await t.target.expire(p('s'));
      await t.record('expired claim taken', claims([[p('s'), '+0:t7']]));
    },
  },
  {
    name: 'membership (member-beat-2): beats renew, lapsed nodes and their addresses drop, on the Redis clock',
    async run(t, r) {
      const keys = ['gf:{members}:nodes', 'gf:{members}:addresses'];
      // Live nodes come in score order, which ties when two beats share a millisecond: read sorted, with their addresses.
      const beat = (node: string, ttl: number, address = '') =>
        t.record(
          `${node} beats`,
          runScript<[number, string[], (string | null)[]]>(r, 'gfMemberBeat', keys, [node, ttl, address]),
          ([wasLive, live, addresses]) => [wasLive, live.map((id, i) => [id, addresses[i]]).sort()],
        );
      await beat('a', 60_000);
      await beat('b', 40, 'b.example:2');
      await beat('c', 60_000, 'c.example:3');
      await beat('a', 60_000, 'a.example:1');
      const score = Number(await r.zscore(keys[0]!, 'b'));
      await t.target.passTime(score);
      await beat('a', 60_000);
      await beat('b', 60_000);
      await t.record('leave', Promise.all([r.zrem(keys[0]!, 'c'), r.hdel(keys[1]!, 'c')]));
      await beat('a', 60_000);
      await t.record('addresses', r.hkeys(keys[1]!));
    },
  },
  {
    name: 'ratings (rating-put-4, rating-record-6): revisions, results once per game, the change stream with cjson entries',
    async run(t, r) {
      const k = ['gf:{r:l}:ratings', 'gf:{r:l}:board', 'gf:{r:l}:changes', 'gf:{r:l}:version'];
      await t.record('put', runScript(r, 'gfRatingPut', k, ['p1', 1500, '{"mu":25}', 1000]));
      await t.record('put again', runScript(r, 'gfRatingPut', k, ['p1', 1510.5, '{"mu":26}', 1000]));
      const record = (game: string, revision: number) =>
        runScript(r, 'gfRatingRecord', ['gf:{r:l}:results', k[0]!, k[1]!, k[2]!, k[3]!, 'gf:{r:l}:h:'], [game, 1234, 1000, 'p1', revision, 1520, '{"mu":27}', '{"g":1}', 'p2', 0, 1480, '{"mu":24}', '{"g":1}']);
      await t.record('record stale', record('g1', 1));
      await t.record('record', record('g1', 2));
      await t.record('record once', record('g1', 3));
      await t.record('board', r.zrange(k[1]!, '0', '-1', 'WITHSCORES'));
      await t.record('history', r.lrange('gf:{r:l}:h:p1', 0, -1));
      await t.record('changes', r.xrange(k[2]!, '-', '+'), (entries) =>
        (entries as [string, string[]][]).map(([id, fields]) => [/^\d+-\d+$/.test(id), fields[0], JSON.parse(fields[1]!)]),
      );
    },
  },
  {
    name: 'relay scripts (relay-find-2, relay-forward-n, relay-commit-n without acks): forwarded or answered from the kept assignment, fenced commits',
    async run(t, r) {
      const inbox = 'gf:{relay}:inbox';
      const kept = 'gf:{relay}:a:t1';
      await t.record('find forwarded', runScript(r, 'gfRelayFind', [kept, inbox], ['{"find":1}']));
      await t.record('forward', runBatchScript(r, 'gfRelayForward', [kept, inbox, inbox], ['F', '{"find":2}', 'M', '{"cancel":1}']));
      await t.record('inbox', r.xrange(inbox, '-', '+'), (entries) => (entries as [string, string[]][]).map(([, fields]) => fields));
      await t.record('fence', r.set('gf:{relay}:fence', '5'));
      const commit = (token: number) =>
        runBatchScript(r, 'gfRelayCommit', ['gf:{relay}:fence', 'gf:{relay}:tickets', inbox, 'gf:{relay}:out:n1', kept], [token, 'owner', 60_000, 60_000, 'S', 4, '{"queued":1}', 'A', 4, 5, '{"assigned":1}', 'R', 't1', '{"rec":1}', 'R', 't1', '', 'R', 't2', '{"rec":2}']);
      await t.record('stale commit', commit(4));
      await t.record('commit', commit(5));
      await t.record('bad write', runBatchScript(r, 'gfRelayCommit', ['gf:{relay}:fence', 'gf:{relay}:tickets', inbox], [5, 'owner', 1, 1, 'Z']));
      await t.record('out', r.xrange('gf:{relay}:out:n1', '-', '+'), (entries) => (entries as [string, string[]][]).map(([, fields]) => fields));
      await t.record('tickets', r.hgetall('gf:{relay}:tickets'));
      await t.record('find answered from the kept assignment', runScript(r, 'gfRelayFind', [kept, inbox], ['{"find":1}']));
      await t.record('forward answered', runBatchScript(r, 'gfRelayForward', [kept, inbox], ['F', '{"find":3}']));
    },
  },
];
