import { AgentCard } from '@a2a-js/sdk';
import type { WorkerBeat } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { agentCard, liveSpecialists } from './agent-card.js';

const beat = (tier: string, specialists: string[] | null): WorkerBeat => ({
  tier,
  host: 'h',
  pid: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  beat_at: '2026-01-01T00:00:00.000Z',
  concurrency: 1,
  running: 0,
  specialists,
});

describe('the agent card', () => {
  it('has a skill per specialist the live Fleet workers serve, each once', () => {
    const specialists = liveSpecialists([beat('SPECIALIZED_FLEET', ['sim', 'writer']), beat('SPECIALIZED_FLEET', ['sim']), beat('PROGRESS_MONITOR', null)]);
    expect(specialists).toEqual(['sim', 'writer']);
    const card = agentCard({ origin: 'https://tierflow.example.com', tokenRequired: false, specialists });
    expect(card.skills.map((skill) => skill.id)).toEqual(['sim', 'writer']);
    expect(card.supportedInterfaces).toEqual([{ url: 'https://tierflow.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.securitySchemes).toEqual({});
  });

  it('has one general skill while no Fleet serves, and names the bearer token when the server asks for one', () => {
    const card = agentCard({ origin: 'http://127.0.0.1:8080', tokenRequired: true, specialists: [] });
    expect(card.skills.map((skill) => skill.id)).toEqual(['objective']);
    expect(AgentCard.toJSON(card)).toMatchObject({
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: {} } }],
    });
  });
});
