// k6 run -e BASE_URL=… -e REPOSITORY_PATH=/deb/<workspace>/<repo> -e TOKEN=… -e SHAPE=load loadtests/k6/apt.js
import http from 'k6/http';
import { check as k6check } from 'k6';
import { aptJourney } from '../lib/journeys.js';
import { toK6Stages } from '../lib/stages.js';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';

export const options = {
  stages: toK6Stages(__ENV.SHAPE || 'smoke'),
  thresholds: {
    'http_req_duration{expected_response:true}': ['p(99)<50'],
    checks: ['rate>0.999'],
  },
};

const client = {
  async request(method, path, { headers = {} } = {}) {
    const response = await http.asyncRequest(method, `${BASE_URL}${path}`, null, { headers });
    return { status: response.status, body: response.body, headers: Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v])) };
  },
};
const check = (name, ok) => k6check(null, { [name]: () => ok });

export default async function () {
  await aptJourney(client, check, {
    repositoryPath: __ENV.REPOSITORY_PATH,
    token: __ENV.TOKEN,
    distro: __ENV.DISTRO || 'ubuntu',
    codename: __ENV.CODENAME || 'noble',
  });
}
