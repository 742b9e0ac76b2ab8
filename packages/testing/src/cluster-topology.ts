import type { Redis } from 'ioredis';

/** One line of `CLUSTER NODES`, as the node asked sees that node. */
export interface ClusterNodeEntry {
  readonly id: string;
  readonly port: number;
  /** `master` or `slave`, with `myself`, `fail?`, `fail`, `handshake`... */
  readonly flags: readonly string[];
  /** The id of its master, for a replica. */
  readonly masterId: string | null;
  /** Slots and slot ranges it serves, e.g. `['0-5460']`. */
  readonly slots: readonly string[];
}

/** A node of the cluster that is still running, and a plain client on it. */
export interface LiveNode {
  readonly id: string;
  readonly port: number;
  readonly admin: Redis;
}

/** The lines of `CLUSTER NODES`: `<id> <ip:port@bus[,hostname]> <flags> <master> <ping> <pong> <epoch> <link> <slot>...` */
export function parseClusterNodes(text: string): ClusterNodeEntry[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.trim().split(' ');
      const hostPort = address.split('@')[0] ?? '';
      return {
        id,
        port: Number(hostPort.slice(hostPort.lastIndexOf(':') + 1)),
        flags: flags.split(','),
        masterId: master === '-' ? null : master,
        // `[slot->-id]` entries are slots being migrated, not served.
        slots: slots.filter((slot) => !slot.startsWith('[')),
      };
    });
}

/** A master that serves slots and that the node asked does not suspect of having failed. */
export function isServingMaster(entry: ClusterNodeEntry): boolean {
  return entry.flags.includes('master') && !entry.flags.includes('fail') && !entry.flags.includes('fail?') && entry.slots.length > 0;
}

export function servesSlot(entry: ClusterNodeEntry, slot: number): boolean {
  return entry.slots.some((range) => {
    const [start = NaN, end = start] = range.split('-').map(Number);
    return slot >= start && slot <= end;
  });
}

/**
 * The cluster as the live nodes agree it is, once it is whole: every one of them says
 * `cluster_state:ok` and sees the same roles and slots for the live nodes, `masters` of them
 * serve slots, and every other one is a replica whose link to its master is up. Nodes learn of
 * changes by gossip, so they agree a while after any one of them knows.
 *
 * @throws Error saying what is not so yet, for the message of a wait that times out.
 */
export async function settledTopology(live: readonly LiveNode[], masters: number): Promise<ClusterNodeEntry[]> {
  const liveIds = new Set(live.map((node) => node.id));
  const views = await Promise.all(
    live.map(async (node) => {
      const info = String(await node.admin.cluster('INFO'));
      if (!info.includes('cluster_state:ok')) throw new Error(`node ${node.port} does not say cluster_state:ok yet`);
      const entries = parseClusterNodes(String(await node.admin.cluster('NODES'))).filter((entry) => liveIds.has(entry.id));
      if (entries.length !== live.length) throw new Error(`node ${node.port} knows ${entries.length} of the ${live.length} live nodes`);
      return { node, entries, key: viewKey(entries) };
    }),
  );
  const [first, ...rest] = views;
  if (first === undefined) throw new Error('no live node to ask');
  const disagreeing = rest.find((view) => view.key !== first.key);
  if (disagreeing) throw new Error(`nodes ${first.node.port} and ${disagreeing.node.port} do not agree on the roles and slots yet`);

  const serving = first.entries.filter(isServingMaster);
  if (serving.length !== masters) throw new Error(`${serving.length} masters serve slots, not ${masters}`);
  const servingIds = new Set(serving.map((entry) => entry.id));
  const replicas = first.entries.filter((entry) => !servingIds.has(entry.id));
  const orphan = replicas.find((entry) => !entry.flags.includes('slave') || entry.masterId === null || !servingIds.has(entry.masterId));
  if (orphan) throw new Error(`node ${orphan.port} is neither a serving master nor a replica of one`);
  await Promise.all(
    replicas.map(async (entry) => {
      const node = live.find((candidate) => candidate.id === entry.id);
      const replication = (await node?.admin.info('replication')) ?? '';
      if (!replication.includes('master_link_status:up')) throw new Error(`replica ${entry.port} has no link to its master yet`);
    }),
  );
  return first.entries;
}

/** What the nodes must agree on: roles, masters and slots, not the flags only the asked node has (`myself`). */
function viewKey(entries: readonly ClusterNodeEntry[]): string {
  return entries
    .map((entry) => `${entry.id} ${entry.flags.includes('master') ? 'master' : 'replica'} ${entry.masterId ?? '-'} ${entry.slots.join(' ')}`)
    .sort()
    .join('\n');
}
