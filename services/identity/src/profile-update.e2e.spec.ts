import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

// PUT /api/v1/user/profile changes what it names and nothing else, and never stores a value
// the settings page could not have chosen.

let packyard: RunningPackyard;

const DEFAULTS = { name: '', timezone: 'UTC', theme: 'system', emailNotifications: true, pushNotifications: false, weeklyDigest: true };

beforeAll(async () => {
  packyard = await startPackyard();
});

afterAll(async () => {
  await packyard?.dispose();
});

async function profileAfter(session: ApiSession, ...bodies: unknown[]) {
  const answers = [];
  for (const body of bodies) answers.push(await session.call('PUT', '/user/profile', body));
  return { answers, stored: (await session.call('GET', '/user/profile')).body };
}

describe('PUT /api/v1/user/profile', () => {
  it('merges a partial document: the fields it does not name keep their values, in the answer and in what is stored', async () => {
    const session = await registerUser(packyard);
    const { answers, stored } = await profileAfter(session, { name: 'A' });
    expect(answers[0]).toEqual({ status: 200, body: { email: session.email, ...DEFAULTS, name: 'A' } });
    expect(stored).toEqual({ email: session.email, ...DEFAULTS, name: 'A' });

    const changed = await profileAfter(session, { theme: 'dark', weeklyDigest: false }, { name: 'B' }, {});
    expect(changed.answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(changed.stored).toEqual({ email: session.email, ...DEFAULTS, name: 'B', theme: 'dark', weeklyDigest: false });
  });

  it('refuses empty, null and mistyped values with 400 and stores nothing of the document', async () => {
    const session = await registerUser(packyard);
    const refused = [
      { name: 'C', timezone: '' },
      { name: 'C', theme: '' },
      { name: 'C', timezone: null },
      { name: 'C', theme: null },
      { name: 'C', emailNotifications: null },
      { name: 'C', pushNotifications: 'yes' },
      { name: 'C', weeklyDigest: 0 },
      { name: null },
      { name: 'C', unknownSetting: true },
    ];
    const { answers, stored } = await profileAfter(session, ...refused);
    refused.forEach((body, index) => expect({ body, status: answers[index].status }).toEqual({ body, status: 400 }));
    expect(answers.every((answer) => typeof answer.body.message === 'string' && answer.body.message.length > 0)).toBe(true);
    expect(stored).toEqual({ email: session.email, ...DEFAULTS });
  });
});
