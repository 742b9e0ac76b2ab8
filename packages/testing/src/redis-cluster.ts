import { Cluster, type ClusterOptions, Redis } from 'ioredis';
import { type ClusterNodeEntry, isServingMaster, type LiveNode, parseClusterNodes, servesSlot, settledTopology } from './cluster-topology.js';
import { findFreePort } from './free-port.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { waitFor } from './wait-for.js';

/** How {@link startRedisCluster} builds its cluster. */
export interface RedisClusterOptions {
  /** Masters, each serving an equal share of the 16384 slots; 3 unless given. `failover` needs 3 or more: a majority of the others must vote. */
  readonly masters?: number;
  /** Replicas of each master; 0 unless given. `failover` needs at least 1. */
  readonly replicasPerMaster?: number;
  /** `requirepass` on every node (and `masterauth`, so replicas can sync). */
  readonly password?: string;
}

/** A node of a {@link RedisCluster}. */
export interface RedisClusterNode {
  readonly host: string;
  readonly port: number;
  /** `redis://127.0.0.1:<port>`, with the password in it when the cluster has one. */
  readonly url: string;
}

/** A private Redis Cluster on loopback ports, owned by this process. */
export interface RedisCluster {
  /** Every node started, masters first; one killed by `failover` stays listed. */
  readonly nodes: readonly RedisClusterNode[];
  /** `host:port` of every node: the seeds a cluster client starts from. */
  readonly seeds: readonly string[];
  /** `seeds` joined with commas, e.g. `127.0.0.1:7001,127.0.0.1:7002`. */
  readonly seedList: string;
  /** The masters serving slots now, asked from the cluster (a failover changes them), in slot order. */
  masters(): Promise<RedisClusterNode[]>;
  /** The master serving `key`'s slot now. */
  masterOf(key: string): Promise<RedisClusterNode>;
  /** A new cluster client on the live nodes (`maxRetriesPerRequest: null`, as BullMQ requires); `stop` closes it. */
  client(options?: ClusterOptions): Cluster;
  /**
   * Kills the master on `masterPort` with SIGKILL, as a crash would, and resolves with the port of
   * the replica that took over once the cluster is whole again.
   */
  failover(masterPort: number): Promise<number>;
  /** Closes the clients, stops every node and removes their directories; calling it again does nothing. */
  stop(): Promise<void>;
}

interface Member extends LiveNode {
  /** Known once the node answers CLUSTER MYID. */
  id: string;
  readonly server: RedisServer;
  readonly busPort: number;
  readonly node: RedisClusterNode;
  alive: boolean;
}

const HOST = '127.0.0.1';
const SLOTS = 16_384;
const PORT_ATTEMPTS = 5;
const SETTLE_TIMEOUT_MS = 20_000;
const POLL_INTERVAL_MS = 50;

/**
 * Starts `masters * (1 + replicasPerMaster)` `redis-server` nodes in cluster mode, each on free
 * loopback ports with a directory of its own, joins them into one cluster (slots, meet, replicate:
 * no `redis-cli` needed), and resolves once every node says `cluster_state:ok` and every replica
 * is in sync with its master:
 *
 * ```ts
 * const cluster = await startRedisCluster({ replicasPerMaster: 1 });
 * const redis = cluster.client();
 * await redis.set('{user:1}:name', 'Ada');
 * await cluster.failover((await cluster.masterOf('{user:1}:name')).port);
 * await cluster.stop();
 * ```
 *
 * It takes a little over 2 s however few the nodes: a master serving slots waits 2 s after it
 * starts before it says `cluster_state:ok`. Nodes left running are killed when this process exits.
 *
 * @throws RangeError on a bad count; Error when a node does not start or the cluster does not form.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  if (!Number.isInteger(masters) || masters < 1) throw new RangeError(`masters must be a whole number of at least 1, not ${masters}`);
  if (!Number.isInteger(replicas) || replicas < 0) throw new RangeError(`replicasPerMaster must be a whole number of at least 0, not ${replicas}`);
  const { password } = options;
  const url = (port: number): string => `redis://${password === undefined ? '' : `:${encodeURIComponent(password)}@`}${HOST}:${port}`;

  const launched = await Promise.allSettled(Array.from({ length: masters * (1 + replicas) }, () => startNode(password)));
  const members: Member[] = [];
  for (const result of launched) {
    if (result.status === 'rejected') continue;
    const { server, busPort } = result.value;
    const admin = new Redis({ host: HOST, port: server.port, ...(password === undefined ? {} : { password }) });
    // A probe's failure is its command's rejection; the client's own error events would only repeat it.
    admin.on('error', () => undefined);
    members.push({ server, busPort, admin, id: '', port: server.port, node: { host: HOST, port: server.port, url: url(server.port) }, alive: true });
  }
  const clients = new Set<Cluster>();
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      for (const client of clients) client.disconnect();
      for (const member of members) member.admin.disconnect();
      await Promise.all(members.map((member) => member.server.stop()));
    })());
  const live = (): Member[] => members.filter((member) => member.alive);
  const ask = async (): Promise<ClusterNodeEntry[]> => parseClusterNodes(String(await live()[0]?.admin.cluster('NODES')));
  const nodeOn = (port: number): RedisClusterNode => members.find((member) => member.port === port)?.node ?? { host: HOST, port, url: url(port) };

  try {
    const failed = launched.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    await formCluster(members, masters);
  } catch (error) {
    await stop();
    throw error;
  }

  const seeds = members.map((member) => `${HOST}:${member.port}`);
  return {
    nodes: members.map((member) => member.node),
    seeds,
    seedList: seeds.join(','),
    async masters() {
      const serving = (await ask()).filter(isServingMaster);
      return serving.sort((a, b) => parseInt(a.slots[0] ?? '', 10) - parseInt(b.slots[0] ?? '', 10)).map((entry) => nodeOn(entry.port));
    },
    async masterOf(key) {
      const slot = Number(await live()[0]?.admin.cluster('KEYSLOT', key));
      const master = (await ask()).find((entry) => isServingMaster(entry) && servesSlot(entry, slot));
      if (!master) throw new Error(`no master serves slot ${slot} of ${key}`);
      return nodeOn(master.port);
    },
    client(overrides = {}) {
      if (stopping) throw new Error('the Redis Cluster is stopped');
      const client = new Cluster(
        live().map(({ port }) => ({ host: HOST, port })),
        { ...overrides, redisOptions: { maxRetriesPerRequest: null, ...(password === undefined ? {} : { password }), ...overrides.redisOptions } },
      );
      clients.add(client);
      // A client its user closes is not closed again.
      client.once('end', () => clients.delete(client));
      return client;
    },
    async failover(masterPort) {
      const master = live().find((member) => member.port === masterPort);
      if (!master) throw new Error(`no live node on port ${masterPort}`);
      const entries = await ask();
      if (!entries.some((entry) => entry.id === master.id && isServingMaster(entry))) throw new Error(`node ${masterPort} is not a master serving slots`);
      const heirs = new Set(entries.filter((entry) => entry.masterId === master.id && live().some((member) => member.id === entry.id)).map((entry) => entry.id));
      if (heirs.size === 0) throw new Error(`master ${masterPort} has no replica to take over`);

      master.alive = false;
      master.admin.disconnect();
      await master.server.kill();
      // The others notice after cluster-node-timeout, agree it failed, and one replica wins an election.
      const heir = await waitFor(async () => (await settledTopology(live(), masters)).find((entry) => heirs.has(entry.id) && isServingMaster(entry)), {
        timeoutMs: SETTLE_TIMEOUT_MS,
        intervalMs: POLL_INTERVAL_MS,
        description: `a replica of ${masterPort} to take over and the cluster to be whole again`,
      });
      return heir.port;
    },
    stop,
  };
}

/** Gives the first `masters` nodes the slots, joins every node to them, and makes the rest their replicas. */
async function formCluster(members: Member[], masters: number): Promise<void> {
  await Promise.all(
    members.map(async (member, index) => {
      member.id = String(await member.admin.cluster('MYID'));
      // Distinct epochs from the start, so nodes need not resolve a collision before they agree. On
      // a loaded machine the command may arrive twice (the client sends again what got no reply
      // before a reconnect) and the second finds the epoch set: the node keeps it, and any
      // collision left the cluster resolves itself, as it would without this step.
      await member.admin.cluster('SET-CONFIG-EPOCH', index + 1).catch((error: unknown) => {
        if (!/config epoch is already non-zero/i.test(String(error))) throw error;
      });
      if (index < masters) await member.admin.call('CLUSTER', 'ADDSLOTSRANGE', Math.floor((index * SLOTS) / masters), Math.floor(((index + 1) * SLOTS) / masters) - 1);
    }),
  );
  const [first, ...others] = members;
  // The bus port is given because it is not the default port + 10000; gossip spreads the rest.
  for (const other of others) await first?.admin.call('CLUSTER', 'MEET', HOST, other.port, other.busPort);
  await waitFor(
    async () => {
      for (const member of members) {
        const entries = parseClusterNodes(String(await member.admin.cluster('NODES')));
        if (entries.length !== members.length || entries.some((entry) => entry.flags.includes('handshake') || entry.flags.includes('noaddr'))) return false;
      }
      return true;
    },
    { timeoutMs: SETTLE_TIMEOUT_MS, intervalMs: POLL_INTERVAL_MS, description: `all ${members.length} cluster nodes to know each other` },
  );
  // A replica may follow only a master it knows, hence after the meeting.
  await Promise.all(members.slice(masters).map((replica, index) => replica.admin.cluster('REPLICATE', members[index % masters]?.id ?? '')));
  await waitFor(() => settledTopology(members, masters), { timeoutMs: SETTLE_TIMEOUT_MS, intervalMs: POLL_INTERVAL_MS, description: 'the Redis Cluster to be whole' });
}

/** A cluster-mode node on a free port, with a free bus port of its own. */
async function startNode(password: string | undefined): Promise<{ server: RedisServer; busPort: number }> {
  for (let attempt = 1; ; attempt++) {
    const busPort = await findFreePort();
    try {
      const server = await startRedisServer({ args: nodeArgs(busPort, password) });
      return { server, busPort };
    } catch (error) {
      // Someone took the bus port between our probe and redis binding it: startRedisServer only retries its own port.
      if (attempt >= PORT_ATTEMPTS || !/address already in use/i.test((error as Error).message)) throw error;
    }
  }
}

function nodeArgs(busPort: number, password: string | undefined): string[] {
  return [
    '--cluster-enabled',
    'yes',
    // Relative to the node's own directory, so no two nodes share the file (redis locks it).
    '--cluster-config-file',
    'nodes.conf',
    // The default, port + 10000, is past 65535 for much of the range free ports come from.
    '--cluster-port',
    String(busPort),
    // The address the nodes give each other and clients (CLUSTER SLOTS), rather than one each learns by gossip.
    '--cluster-announce-ip',
    HOST,
    // A silent master counts as failed after 1 s rather than 15 s, so a failover takes seconds.
    '--cluster-node-timeout',
    '1000',
    // A replica may take over however long ago it last heard from its master: a loaded machine stalls processes.
    '--cluster-replica-validity-factor',
    '0',
    // A replica's first sync starts at once instead of waiting 5 s for more replicas to share it.
    '--repl-diskless-sync-delay',
    '0',
    ...(password === undefined ? [] : ['--requirepass', password, '--masterauth', password]),
  ];
}
