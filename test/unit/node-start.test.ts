import { describe, expect, it } from 'vitest';
import { parkCaCerts, unparkCaCerts } from '../../lib/core/node-start.js';

describe('NODE_EXTRA_CA_CERTS parked for a node that makes no TLS connection', () => {
  it('parks a set variable, even an empty one, and leaves the caller\'s environment alone', () => {
    const env = { NODE_EXTRA_CA_CERTS: '/ca.pem', PATH: '/bin' };
    expect(parkCaCerts(env)).toEqual({ INTENT_NODE_EXTRA_CA_CERTS: '/ca.pem', PATH: '/bin' });
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/ca.pem', PATH: '/bin' });
    expect(parkCaCerts({ NODE_EXTRA_CA_CERTS: '' })).toEqual({ INTENT_NODE_EXTRA_CA_CERTS: '' });
  });

  it('drops a stale parked value when nothing is set, so it cannot come back', () => {
    expect(parkCaCerts({ INTENT_NODE_EXTRA_CA_CERTS: '/old.pem' })).toEqual({});
  });

  it('puts a parked value back, and only a parked one', () => {
    const env: NodeJS.ProcessEnv = { INTENT_NODE_EXTRA_CA_CERTS: '/ca.pem' };
    unparkCaCerts(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/ca.pem' });
    const none: NodeJS.ProcessEnv = { PATH: '/bin' };
    unparkCaCerts(none);
    expect(none).toEqual({ PATH: '/bin' });
  });
});
