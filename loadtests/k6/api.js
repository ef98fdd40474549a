// k6 run -e BASE_URL=http://localhost:8080 -e SHAPE=load loadtests/k6/api.js
import http from 'k6/http';
import { check as k6check } from 'k6';
import { apiJourney, apiSetup } from '../lib/journeys.js';
import { toK6Stages } from '../lib/stages.js';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';

export const options = {
  stages: toK6Stages(__ENV.SHAPE || 'smoke'),
  thresholds: {
    http_req_failed: ['rate<0.01'],
    http_req_duration: ['p(95)<200', 'p(99)<500'],
    checks: ['rate>0.99'],
  },
};

const client = {
  async request(method, path, { headers = {}, body } = {}) {
    const response = await http.asyncRequest(method, `${BASE_URL}${path}`, body === undefined ? null : JSON.stringify(body), {
      headers: { 'content-type': 'application/json', ...headers },
    });
    return { status: response.status, body: response.body, headers: lower(response.headers), json: () => response.json() };
  },
};
const lower = (headers) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
const check = (name, ok) => k6check(null, { [name]: () => ok });

export async function setup() {
  // wait for readiness before loading the system (QuickPizza's setup)
  for (let i = 0; i < 60 && http.get(`${BASE_URL}/api/actuator/health`).status !== 200; i++) sleepSeconds(1);
  return apiSetup(client);
}
function sleepSeconds(s) {
  const until = Date.now() + s * 1000;
  while (Date.now() < until);
}

export default async function (data) {
  await apiJourney(client, check, data);
}
