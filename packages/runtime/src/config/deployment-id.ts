import { createHash } from 'node:crypto';

/**
 * A deployment's id when `TIERFLOW_DEPLOYMENT_ID` names none: derived from where its state lives
 * (the Redis server's host and port, or its Cluster's seeds, and the key prefix), so every process
 * of one deployment, on any machine, derives the same id, and it survives restarts. Credentials
 * and the database number are left out: a tier logging in as its own Redis user is the same
 * deployment. The address is hashed so that an id sent to a remote agent does not reveal it. Pure.
 */
export function derivedDeploymentId(redisUrl: string, redisCluster: readonly string[] | null, prefix: string): string {
  const where =
    redisCluster && redisCluster.length > 0
      ? [...redisCluster]
          .map((seed) => seed.toLowerCase())
          .sort()
          .join(',')
      : hostOf(redisUrl);
  return `d-${createHash('sha256').update(`${where}|${prefix}`).digest('hex').slice(0, 16)}`;
}

function hostOf(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    return `${url.hostname.toLowerCase()}:${url.port || '6379'}`;
  } catch {
    return redisUrl;
  }
}
