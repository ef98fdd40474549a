import { Counter, type Registry } from 'prom-client';
import { PackyardError } from '@packyard/platform';

export type SignInMethod = 'register' | 'password' | 'two-factor' | 'oidc' | 'refresh';

/** sign-ins by method and outcome: a rise of `rate_limited` or `refused` is an attack or an outage */
export function identityMetrics(registry: Registry) {
  const signIns = new Counter({
    name: 'packyard_identity_sign_ins_total',
    help: 'Sign-in, registration and refresh attempts by method and result (success, refused, rate_limited, error)',
    labelNames: ['method', 'result'],
    registers: [registry],
  });
  return {
    /** runs an attempt and counts its outcome */
    async signIn<T>(method: SignInMethod, attempt: () => Promise<T>): Promise<T> {
      try {
        const result = await attempt();
        signIns.inc({ method, result: 'success' });
        return result;
      } catch (error) {
        const result =
          error instanceof PackyardError ? (error.kind === 'RATE_LIMITED' ? 'rate_limited' : error.kind === 'INTERNAL' || error.kind === 'UNAVAILABLE' ? 'error' : 'refused') : 'error';
        signIns.inc({ method, result });
        throw error;
      }
    },
  };
}

export type IdentityMetrics = ReturnType<typeof identityMetrics>;
