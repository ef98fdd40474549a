import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildDeb, buildRpm, type DebianRoot, freshDebianRoot, type RunningPackyard, runInRoot, waitFor } from '@packyard/testing';
import { type ApiSession, registerUser } from '@packyard/testing/api-session';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerNextConfirm, buildConsole, type ConsoleBrowser, delayNext, openBrowser, pause, screenshot, startPackyard, waitForPath } from './console-harness';

// The repository page driven in Chromium against the single-node program: every tab, its
// validations and confirmations, real .deb and .rpm uploads through the page, and the
// install commands copied from the page run verbatim in a Debian root.

let program: RunningPackyard;
let browser: ConsoleBrowser;
let page: Page;
let user: ApiSession;
let workspaceId = '';
let debRepo = { id: '', name: 'apt-tools' };
let rpmRepo = { id: '', name: 'yum-tools' };
let work = '';
const roots: DebianRoot[] = [];
const at = (path: string) => `${program.url}${path}`;
const repoPath = (repository: { id: string }, tab = '') => `/workspaces/${workspaceId}/repos/${repository.id}${tab ? `/${tab}` : ''}`;

const text = (value: string | RegExp) => page.getByText(value).first();
const visible = (value: string | RegExp, timeout = 15_000) => text(value).waitFor({ state: 'visible', timeout });
const button = (name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' });
const tab = (name: string) => page.getByRole('tab', { name });
const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
const codeIn = (section: string) => page.getByRole('region', { name: section }).locator('code').first().innerText();
const statusTexts = () => page.getByRole('list', { name: 'Upload queue' }).locator('li').allInnerTexts();

const asPayload = (path: string) => ({ name: basename(path), mimeType: 'application/octet-stream', buffer: readFileSync(path) });

/** A .deb big enough (3 MB, stored uncompressed) that a throttled upload shows its progress. */
function buildBigDeb(outDir: string): string {
  const root = join(outDir, 'big-root');
  execFileSync('mkdir', ['-p', join(root, 'DEBIAN'), join(root, 'usr/share/big-data')]);
  writeFileSync(join(root, 'usr/share/big-data/blob'), Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7919) % 251)));
  writeFileSync(join(root, 'DEBIAN/control'), 'Package: big-data\nVersion: 2.0\nArchitecture: all\nMaintainer: Packyard Tests <tests@packyard.example>\nDescription: a large package\n');
  const file = join(outDir, 'big-data_2.0_all.deb');
  execFileSync('dpkg-deb', ['--root-owner-group', '-Znone', '--build', root, file]);
  return file;
}

async function uploadViaApi(repositoryId: string, file: string, distribution: string) {
  const form = new FormData();
  form.append('distribution', distribution);
  form.append('file', new Blob([readFileSync(file)]), basename(file));
  const response = await fetch(at(`/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload`), { method: 'POST', headers: { authorization: `Bearer ${user.bearer}` }, body: form });
  expect(response.status).toBe(201);
}

/** Waits until the edge serves `url` with the token (publishing follows the upload within seconds). */
async function waitForEdge(url: string, token: string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const response = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` } });
    if (response.status === 200) return;
    await pause(500);
  }
  throw new Error(`${url} was not published in time`);
}

/** Clicks and returns the address the new tab asked for (the page itself stays). */
async function openedByClick(target: ReturnType<Page['getByRole']>): Promise<string> {
  const requested = browser.context.waitForEvent('request', { predicate: (request) => request.isNavigationRequest() });
  const opened = browser.context.waitForEvent('page');
  await target.click();
  const request = await requested;
  await (await opened).close();
  return request.url();
}

/** Every request the page makes whose URL matches, counted while `action` runs. */
async function countRequests(pattern: RegExp, action: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (request: Request) => {
    if (request.method() === 'GET' && pattern.test(new URL(request.url()).pathname)) seen.push(request.url());
  };
  page.on('request', listener);
  try {
    await action();
  } finally {
    page.off('request', listener);
  }
  return seen;
}

beforeAll(async () => {
  buildConsole();
  work = mkdtempSync(join(tmpdir(), 'packyard-repository-e2e-'));
  program = await startPackyard();
  user = await registerUser(program);
  const workspace = await user.call('POST', '/workspaces', { name: 'Acme', slug: 'acme', description: '' });
  expect(workspace.status).toBe(201);
  workspaceId = workspace.body.id;
  const deb = await user.call('POST', `/workspaces/${workspaceId}/repos`, { name: debRepo.name, kind: 'DEB', codename: 'bookworm', component: 'main' });
  const rpm = await user.call('POST', `/workspaces/${workspaceId}/repos`, { name: rpmRepo.name, kind: 'RPM', codename: '', component: '' });
  expect([deb.status, rpm.status]).toEqual([201, 201]);
  debRepo = { ...debRepo, id: deb.body.id };
  rpmRepo = { ...rpmRepo, id: rpm.body.id };

  browser = await openBrowser({ width: 1280, height: 900 });
  page = browser.page;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: program.url });
  await page.goto(at('/login'));
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill('correct horse battery');
  await button('Sign in').click();
  await waitForPath(page, '/dashboard');
});

afterAll(async () => {
  await browser?.close();
  await program?.dispose();
  for (const root of roots) await root.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('repository page (1280 px)', () => {
  it('shows "Repository not found" with a way back', async () => {
    await page.goto(at(`/workspaces/${workspaceId}/repos/no-such-repository`));
    await visible('Repository not found');
    await visible("The repository you're looking for doesn't exist or has been deleted.");
    await screenshot(page, 'repository-not-found');
    await page.getByRole('link', { name: 'Back to Repositories' }).click();
    await waitForPath(page, `/workspaces/${workspaceId}/repos`);
  });

  it('shows a skeleton, then the breadcrumb, the header and the Overview tab first', async () => {
    await delayNext(page, `**/api/v1/workspaces/${workspaceId}/repos/${debRepo.id}`, 1200);
    await page.goto(at(repoPath(debRepo)));
    await page.getByLabel('Loading repository').waitFor();
    await page.getByRole('heading', { level: 1, name: debRepo.name }).waitFor();
    const breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
    expect((await breadcrumb.innerText()).replace(/\s*\/\s*/g, ' / ')).toBe(`Workspaces / Acme / ${debRepo.name}`);
    expect(await tab('Overview').getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('tab').allInnerTexts()).toEqual(['Overview', 'Install', 'Packages', 'Upload', 'Keys', 'Settings']);
    const facts = await page.getByRole('list', { name: 'Repository facts' }).innerText();
    for (const fact of ['0 packages', '0 B', 'Codename: bookworm', 'Component: main', 'Created ']) expect(facts).toContain(fact);
    await visible('DEB');
  });

  it('Overview: information panel, APT setup with copy, public repository URL', async () => {
    const info = await page.locator('dl.pk-meta').innerText();
    for (const value of ['DEB (Debian/Ubuntu)', 'bookworm', 'main', 'Storage Used']) expect(info).toContain(value);
    const setup = await page.locator('.pk-code code').first().innerText();
    // before the first upload: no distribution holds packages, the spec's codenames are offered, the repository's own chosen
    expect(await page.getByTestId('stocked-distributions').innerText()).toBe('None yet: upload a package for a distribution');
    expect(await page.getByLabel('Distribution').locator('option').allInnerTexts()).toEqual(['noble (Ubuntu 24.04)', 'jammy (Ubuntu 22.04)', 'focal (Ubuntu 20.04)', 'bookworm (Debian 12)', 'bullseye (Debian 11)']);
    expect(await page.getByLabel('Distribution').inputValue()).toBe('debian/bookworm');
    expect(setup).toContain(`[signed-by=/etc/apt/keyrings/${debRepo.name}.gpg] ${program.url}/deb/acme/${debRepo.name}/debian bookworm main`);
    await button('Copy APT setup').click();
    expect(await clipboard()).toBe(setup);

    await button('Copy Repository URL').click();
    await visible('Copied');
    expect(await clipboard()).toBe(`${program.url}/deb/acme/${debRepo.name}`);
    // the owner's view of what apt sees (the edge itself wants a token and has no listing)
    await button('View Public Repository').click();
    await waitForPath(page, repoPath(debRepo, 'browse'));
    await visible('Nothing published yet');
    expect(await page.getByTestId('repository-url').innerText()).toBe(`${program.url}/deb/acme/${debRepo.name}`);
    await page.goBack();
    await button('Copy Repository URL').waitFor();
    await screenshot(page, 'repository-overview');
  });

  it('Overview: empty values read "Not set"', async () => {
    await page.route(`**/api/v1/workspaces/${workspaceId}/repos/${debRepo.id}`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), codename: '', component: '' } });
    });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: debRepo.name }).waitFor();
    expect(await page.locator('dl.pk-meta').innerText()).toMatch(/Codename\s+Not set\s+Component\s+Not set/);
    // a codename no distribution has is explained where it is shown
    await page.route(`**/api/v1/workspaces/${workspaceId}/repos/${debRepo.id}`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), codename: 'stable' } });
    });
    await page.reload();
    await visible('"stable" is this repository\'s own suite name, not a distribution: a package goes to the distribution chosen at upload.', 15_000);
    expect(await page.getByRole('list', { name: 'Repository facts' }).getByText('Codename: stable').getAttribute('title')).toContain('not a distribution');
    await page.unroute(`**/api/v1/workspaces/${workspaceId}/repos/${debRepo.id}`);
    await page.reload();
    await visible('Codename: bookworm');
  });

  it('Keys: "Loading..." until the snippets arrive, key URL with Copy and View, keyring command, security list', async () => {
    await delayNext(page, `**/api/v1/repos/${debRepo.id}/snippets`, 1500);
    await page.goto(at(repoPath(debRepo, 'keys')));
    const keyUrl = page.getByLabel('Public Key URL');
    await keyUrl.waitFor();
    expect(await keyUrl.inputValue()).toBe('Loading...');
    expect(await keyUrl.getAttribute('readonly')).not.toBeNull();
    await page.waitForFunction(() => (document.getElementById('public-key-url') as HTMLInputElement | null)?.value.endsWith('/gpg.key'));
    const publicKeyUrl = await keyUrl.inputValue();
    expect(publicKeyUrl).toBe(`${program.url}/deb/acme/${debRepo.name}/gpg.key`);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await clipboard()).toBe(publicKeyUrl);
    expect(await openedByClick(button('View'))).toBe(publicKeyUrl);

    const keyCommand = await page.locator('.pk-code code').first().innerText();
    expect(keyCommand).toContain(`/etc/apt/keyrings/${debRepo.name}.gpg`);
    await button('Copy key command').click();
    expect(await clipboard()).toBe(keyCommand);
    // The Keys tab's command is the very first step of the Overview's APT setup.
    await tab('Overview').click();
    expect((await page.locator('.pk-code code').first().innerText()).split('\n')[0]).toBe(keyCommand);
    await tab('Keys').click();
    // allInnerTexts does not wait: the tab renders after the click
    await page.locator('.pk-security-list li').first().waitFor();
    const notes = await page.locator('.pk-security-list li').allInnerTexts();
    expect(notes.map((note) => note.trim())).toEqual([
      'All packages in this repository are signed with its GPG key.',
      'The public key is served over HTTPS.',
      'Package managers verify signatures automatically once the key is installed.',
      'Installation is blocked when a signature fails verification.',
    ]);
    await screenshot(page, 'repository-keys');
  });

  it('Keys: lists the signing key with when it is rolled; Roll Key asks first, then shows the new key beside the previous one', async () => {
    const keys = page.getByRole('list', { name: 'Signing keys' });
    await keys.waitFor();
    const [first] = await keys.locator('li').allInnerTexts();
    expect(first).toMatch(/^[0-9A-F]{40}\s+Current\s+Created .+ · Rolled before /);
    expect(first).not.toContain('Expires soon');

    const dismissed = answerNextConfirm(page, false);
    await button('Roll Key').click();
    expect(await dismissed).toMatch(/^Roll the signing key\?/);
    expect(await keys.locator('li').count()).toBe(1);

    const accepted = answerNextConfirm(page, true);
    await button('Roll Key').click();
    await accepted;
    await keys.locator('li').nth(1).waitFor({ timeout: 60_000 });
    const [current, previous] = await keys.locator('li').allInnerTexts();
    expect(current).toMatch(/Current/);
    expect(previous).toMatch(/^[0-9A-F]{40}\s+Previous \(still signs\)\s+Created .+ · Signs until /);
    expect(previous.slice(0, 40)).toBe(first.slice(0, 40));
    // one roll at a time: the button waits for the overlap to end
    expect(await page.getByRole('button', { name: /Roll Key|Rolling/ }).isDisabled()).toBe(true);
    // the key URL serves both keys once the repository is published again with them
    await waitFor('both keys at the key URL', async () => {
      const served = await (await fetch(`${program.url}/deb/acme/${debRepo.name}/gpg.key`)).text();
      return served.match(/BEGIN PGP PUBLIC KEY BLOCK/g)?.length === 2 ? true : undefined;
    });
  });

  it('Packages: empty list first', async () => {
    await tab('Packages').click();
    await waitForPath(page, repoPath(debRepo, 'packages'));
    await visible('No packages yet');
  });

  it('Upload: distribution first, client validation, queue, progress, Upload All with one refresh', async () => {
    const hello = await buildDeb({ name: 'hello-packyard', version: '1.0-1', arch: 'all', description: 'hello from the console' }, work);
    const big = buildBigDeb(work);
    await tab('Upload').click();
    const distribution = page.getByLabel('Distribution');
    expect(await distribution.inputValue()).toBe('');
    const options = await distribution.locator('option').allInnerTexts();
    expect(options[0]).toBe('-- Select Distribution (Required) --');
    expect(options.slice(1)).toHaveLength(19);
    expect(options.slice(1, 3)).toEqual(['ubuntu/noble', 'ubuntu/jammy']);
    expect(await button('Choose Files').isDisabled()).toBe(true);
    await visible('Maximum file size: 100 MB');
    await visible('Uploads without a distribution are rejected.');

    // A drop without a distribution is refused with the alert.
    const alert = answerNextConfirm(page, true);
    await page.getByTestId('drop-zone').evaluate((zone) => {
      const data = new DataTransfer();
      data.items.add(new File(['x'], 'early.deb'));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    expect(await alert).toBe('Distribution selection is required! Please select a distribution before uploading.');
    expect(await page.getByRole('list', { name: 'Upload queue' }).count()).toBe(0);

    await distribution.selectOption('debian/bookworm');
    expect(await button('Choose Files').isDisabled()).toBe(false);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), button('Choose Files').click()]);
    expect(chooser.isMultiple()).toBe(true);
    await chooser.setFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a package') }, { name: 'tool.rpm', mimeType: 'application/x-rpm', buffer: Buffer.from('x') }]);
    // Over 100 MB, dropped (made in the page: 100 MB + 1 byte).
    await page.getByTestId('drop-zone').evaluate((zone) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(100 * 1024 * 1024 + 1)], 'HUGE.DEB'));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await visible('Upload Queue (3)');
    const rows = await statusTexts();
    expect(rows[0]).toContain('File must be a .deb package');
    expect(rows[1]).toContain('File must be a .deb package');
    expect(rows[2]).toContain('File must be smaller than 100 MB');
    expect(rows[2]).toContain('debian/bookworm');
    expect(await button('Upload All (0)').isDisabled()).toBe(true);
    const queue = page.getByRole('list', { name: 'Upload queue' });
    for (const row of await queue.locator('li').all()) expect(await row.getByRole('button', { name: 'Upload' }).isDisabled()).toBe(true);
    await button('Clear All').click();
    expect(await queue.count()).toBe(0);

    await page.locator('input[type=file]').setInputFiles([hello, big]);
    await visible('Upload Queue (2)');
    expect((await statusTexts()).every((row) => row.includes('Ready to upload') && row.includes('debian/bookworm'))).toBe(true);
    await page.locator('input[type=file]').setInputFiles({ name: 'stray.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
    await visible('Upload Queue (3)');
    await queue.locator('li').filter({ hasText: 'stray.txt' }).getByRole('button', { name: 'Remove' }).click();
    await visible('Upload Queue (2)');
    await screenshot(page, 'repository-upload');

    // Throttle the uplink so the 3 MB file's progress is observable.
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 768 * 1024 });
    const progressSeen = new Set<number>();
    let screenshotTaken = false;
    const requests = await countRequests(new RegExp(`/repos/${debRepo.id}(/packages)?$`), async () => {
      await button('Upload All (2)').click();
      const deadline = Date.now() + 90_000;
      while ((await statusTexts()).filter((row) => row.includes('Upload complete')).length < 2) {
        if (Date.now() > deadline) throw new Error(`uploads did not finish: ${await statusTexts()}`);
        const bar = page.getByRole('progressbar');
        if (await bar.count()) {
          const value = Number(await bar.first().getAttribute('aria-valuenow').catch(() => 'NaN'));
          if (Number.isFinite(value)) progressSeen.add(value);
          const label = (await statusTexts()).find((row) => /Uploading\.\.\. \d+%/.test(row));
          if (label && value > 10 && value < 90 && !screenshotTaken) {
            screenshotTaken = true;
            await screenshot(page, 'repository-upload-progress');
          }
        }
        await pause(100);
      }
      await pause(2000);
    });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    console.log(`upload progress values seen: ${[...progressSeen].sort((a, b) => a - b).join(', ')}`);
    expect([...progressSeen].some((value) => value > 0 && value < 100)).toBe(true);
    // One refresh at the end: the package list once, the repository header once.
    expect(requests.filter((url) => url.includes('/packages')).length).toBe(1);
    expect(requests.filter((url) => !url.includes('/packages')).length).toBe(1);
    await visible('2 packages');
    expect(await button('Upload All (0)').isDisabled()).toBe(true);
  });

  it('Upload: an RPM through a single row, refreshed after it completes', async () => {
    const rpm = await buildRpm({ name: 'yum-hello', version: '1.2', release: '1', arch: 'noarch' }, work);
    await page.goto(at(repoPath(rpmRepo, 'upload')));
    await page.getByLabel('Distribution').waitFor();
    const options = await page.getByLabel('Distribution').locator('option').allInnerTexts();
    expect(options).toEqual(['-- Select Distribution (Required) --', 'el/9', 'el/8', 'el/7', 'fedora/39', 'fedora/38', 'fedora/37', 'opensuse/tumbleweed', 'opensuse/leap-15.5', 'any-distro/any-version']);
    expect(await page.locator('input[type=file]').getAttribute('accept')).toBe('.rpm');
    await page.getByLabel('Distribution').selectOption('el/9');
    await page.locator('input[type=file]').setInputFiles([asPayload(rpm), { name: 'wrong.deb', mimeType: 'application/octet-stream', buffer: Buffer.from('x') }]);
    await visible('File must be a .rpm package');
    const requests = await countRequests(new RegExp(`/repos/${rpmRepo.id}$`), async () => {
      await page.getByRole('list', { name: 'Upload queue' }).locator('li').first().getByRole('button', { name: 'Upload' }).click();
      await visible('Upload complete');
      await visible('1 package');
    });
    expect(requests.length).toBe(1);
    await tab('Packages').click();
    const row = page.getByRole('table', { name: 'Packages' }).getByRole('row').filter({ hasText: 'yum-hello-1.2-1.noarch.rpm' });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/yum-hello\s+yum-hello-1\.2-1\.noarch\.rpm\s+1\.2-1\s+noarch/);
  });

  it('Overview: the distributions that hold packages, with the setup text for them', async () => {
    // publishing follows the upload within moments: the page shows what the edge serves when it loads
    const overviewListing = async (repository: { id: string }, expected: string) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        await page.goto(at(repoPath(repository)));
        await page.locator('.pk-code code').first().waitFor();
        const listed = await page.getByTestId('stocked-distributions').innerText();
        if (listed === expected) return;
        if (Date.now() > deadline) throw new Error(`the Overview lists "${listed}", not "${expected}"`);
        await pause(500);
      }
    };
    await overviewListing(debRepo, 'debian/bookworm (2)');
    expect(await page.getByLabel('Distribution').locator('option').allInnerTexts()).toEqual(['bookworm (Debian 12) · 2 packages']);
    expect(await page.locator('.pk-code code').first().innerText()).toContain(`${program.url}/deb/acme/${debRepo.name}/debian bookworm main`);

    // the browsable view: each distribution, where apt starts reading it, and its packages
    await button('View Public Repository').click();
    await waitForPath(page, repoPath(debRepo, 'browse'));
    const bookworm = page.getByRole('region', { name: 'debian/bookworm' });
    await bookworm.waitFor();
    const entryPoint = `${program.url}/deb/acme/${debRepo.name}/debian/dists/bookworm/InRelease`;
    expect(await bookworm.innerText()).toContain(entryPoint);
    const listed = await bookworm.getByRole('table', { name: 'Packages in debian/bookworm' }).locator('tbody tr').allInnerTexts();
    expect(listed.map((row) => row.split(/\s+/)[0]).sort()).toEqual(['big-data', 'hello-packyard']);
    const { body: reader } = await user.call('POST', '/tokens', { name: 'browse-check', scopes: ['read'] });
    const served = await fetch(entryPoint, { headers: { authorization: `Basic ${Buffer.from(`${reader.token}:`).toString('base64')}` } });
    expect(served.status).toBe(200);
    expect(await served.text()).toMatch(/^Codename: bookworm$/m);
    await screenshot(page, 'repository-browse');

    await overviewListing(rpmRepo, 'el/9 (1)');
  });

  it('Upload: the CI command the page shows uploads verbatim with an account token', async () => {
    const { body: created } = await user.call('POST', '/tokens', { name: 'ci-upload', scopes: ['publish'] });
    await page.goto(at(repoPath(rpmRepo, 'upload')));
    await page.getByLabel('Distribution').selectOption('el/9');
    const region = page.getByRole('region', { name: 'Upload from CI' });
    await page.waitForFunction(() => document.querySelector('[aria-label="Upload from CI"] code')?.textContent?.includes('distribution=el/9'));
    const command = await region.locator('code').innerText();
    await region.getByRole('button', { name: 'Copy CI upload command' }).click();
    expect(await clipboard()).toBe(command);
    expect(command).toContain(`${program.url}/api/v1/workspaces/${workspaceId}/repos/${rpmRepo.id}/upload?wait=published`);

    // the file name the command names, in a folder of its own, as a CI job's checkout would have it
    const ci = join(work, 'ci');
    await mkdir(ci, { recursive: true });
    const built = await buildRpm({ name: 'ci-hello', version: '1.0', release: '1', arch: 'noarch' }, ci);
    execFileSync('mv', [built, join(ci, 'my-package-1.0-1.x86_64.rpm')]);
    const output = execFileSync('bash', ['-c', command], { cwd: ci, env: { ...process.env, PACKYARD_TOKEN: created.token }, encoding: 'utf8' });
    expect(JSON.parse(output)).toMatchObject({ name: 'ci-hello', distribution: 'el/9' });
  });

  it('Install: tokens — create form, mask, show, copy; instructions with codename and component', async () => {
    await page.goto(at(repoPath(debRepo, 'install')));
    await visible('No tokens created yet.');
    expect(await text('Installation Instructions').count()).toBe(0);
    await button('Create Token').click();
    const name = page.getByLabel('Token Name');
    expect(await name.getAttribute('placeholder')).toBe('e.g. production-server or ci-deployment');
    expect(await button('Create').isDisabled()).toBe(true);
    await name.fill('   ');
    expect(await button('Create').isDisabled()).toBe(true);
    await button('Cancel').click();
    expect(await page.getByLabel('Token Name').count()).toBe(0);
    await button('Create Token').click();
    await page.getByLabel('Token Name').fill('  ci-deployment ');
    await button('Create').click();
    const row = page.getByRole('listitem', { name: 'Token ci-deployment' });
    await row.waitFor();
    expect(await row.innerText()).toContain('Active');
    const masked = await row.getByTestId('token-value').innerText();
    expect(masked).toMatch(/^.{8}…$/);
    await row.getByRole('button', { name: 'Show token' }).click();
    const token = await row.getByTestId('token-value').innerText();
    expect(token.startsWith(masked.slice(0, 8))).toBe(true);
    expect(token.length).toBeGreaterThan(8);
    await row.getByRole('button', { name: 'Copy token' }).click();
    expect(await clipboard()).toBe(token);
    await row.getByRole('button', { name: 'Hide token' }).click();
    expect(await row.getByTestId('token-value').innerText()).toBe(masked);
    for (const fact of ['Created ', 'Last used Never', 'Used 0 times']) expect(await row.innerText()).toContain(fact);

    await visible('Installation Instructions');
    expect(await page.getByLabel('Select Token').inputValue()).toBe('');
    // the two uploads went to debian/bookworm: that is where the instructions point, and all they offer
    await page.waitForFunction(() => document.querySelector('select[name="codename"]')?.textContent?.includes('packages'));
    const codenames = await page.getByLabel('Codename').locator('option').allInnerTexts();
    expect(codenames).toEqual(['bookworm (Debian 12) · 2 packages']);
    expect(await page.getByLabel('Codename').inputValue()).toBe('debian/bookworm');
    expect(await page.getByLabel('Component').locator('option').allInnerTexts()).toEqual(['main', 'contrib', 'non-free']);
    expect(await page.getByRole('region', { name: 'Automated Installation' }).count()).toBe(0);
    await page.getByLabel('Select Token').selectOption({ label: 'ci-deployment' });
    const oneLiner = await codeIn('Automated Installation');
    expect(oneLiner).toContain(`/api/install-deb.sh?repo=${debRepo.id}&codename=bookworm&component=main`);
    expect(oneLiner.endsWith(`| sudo bash -s -- ${token}`)).toBe(true);
    await page.getByRole('region', { name: 'Automated Installation' }).getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await clipboard()).toBe(oneLiner);
    // Another component: the commands follow.
    await page.getByLabel('Component').selectOption('contrib');
    await page.waitForFunction(() => document.querySelector('[aria-label="Automated Installation"] code')?.textContent?.includes('codename=bookworm&component=contrib'));
    await page.getByLabel('Component').selectOption('main');
    await page.waitForFunction(() => document.querySelector('[aria-label="Automated Installation"] code')?.textContent?.includes('codename=bookworm&component=main'));
    await screenshot(page, 'repository-install');
  });

  it('Install: the script Download opens the install script', async () => {
    const scriptUrl = at(`/api/install-deb.sh?repo=${debRepo.id}&codename=bookworm&component=main`);
    expect(await openedByClick(button('Download'))).toBe(scriptUrl);
    expect((await (await fetch(scriptUrl)).text()).startsWith('#!')).toBe(true);
  });

  let commands: { oneLiner: string; download: string; chmod: string; run: string; example: string; token: string };

  it('Install: copies the manual steps and the example command', async () => {
    const copied: string[] = [];
    for (const [section, label] of [
      ['1. Download the install script', 'Copy download command'],
      ['2. Make it executable', 'Copy chmod command'],
      ['3. Run the installer with your token', 'Copy run command'],
      ['Update and install a package', 'Copy example command'],
    ]) {
      await page.getByRole('region', { name: section }).getByRole('button', { name: label }).click();
      copied.push(await clipboard());
      expect(copied.at(-1)).toBe(await codeIn(section));
    }
    const [download, chmod, run, example] = copied;
    const token = (await page.getByRole('region', { name: 'Automated Installation' }).locator('code').innerText()).split(' ').at(-1)!;
    expect(download).toBe(`curl -fsSL -o install-deb.sh '${program.url}/api/install-deb.sh?repo=${debRepo.id}&codename=bookworm&component=main'`);
    expect(chmod).toBe('chmod +x install-deb.sh');
    expect(run).toBe(`sudo ./install-deb.sh ${token}`);
    expect(example).toMatch(/^sudo apt-get update && sudo apt-get install -y (hello-packyard|big-data)$/);
    commands = { oneLiner: await codeIn('Automated Installation'), download, chmod, run, example, token };
  });

  it('Packages: list, search, download the real file, pages of 20, delete with confirmation', async () => {
    await tab('Packages').click();
    const table = page.getByRole('table', { name: 'Packages' });
    await table.waitFor();
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['PACKAGE', 'VERSION', 'ARCHITECTURE', 'DISTRIBUTION', 'SIZE', 'DOWNLOADS', 'PUBLISHED', 'ACTIONS']);
    const helloRow = table.getByRole('row').filter({ hasText: 'hello-packyard_1.0-1_all.deb' });
    expect(await helloRow.innerText()).toMatch(/hello-packyard\s+hello-packyard_1\.0-1_all\.deb\s+1\.0-1\s+all\s+debian\/bookworm/);

    await page.getByLabel('Search packages').fill('BIG');
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Packages"] tbody tr').length === 1);
    expect(await table.innerText()).toContain('big-data_2.0_all.deb');
    await page.getByLabel('Search packages').fill('zzz');
    await visible('No packages found');
    await page.getByLabel('Search packages').fill('');
    await table.waitFor();

    // The download goes to the edge with the token: wait for publication, then compare the bytes.
    const poolUrl = `${program.url}/deb/acme/${debRepo.name}/debian/pool/main/h/hello-packyard/debian/bookworm/hello-packyard_1.0-1_all.deb`;
    await waitForEdge(poolUrl, commands.token);
    const [download] = await Promise.all([page.waitForEvent('download'), helloRow.getByRole('button', { name: 'Download hello-packyard_1.0-1_all.deb' }).click()]);
    expect(download.suggestedFilename()).toBe('hello-packyard_1.0-1_all.deb');
    const saved = join(work, 'downloaded.deb');
    await download.saveAs(saved);
    expect(readFileSync(saved).equals(readFileSync(join(work, 'hello-packyard_1.0-1_all.deb')))).toBe(true);
    await screenshot(page, 'repository-packages');

    // 21 more packages (through the API, a few at a time as a CI job would, for one distribution so
    // that publishing them stays one index's work on a busy machine) make a second page.
    const extra = join(work, 'extra');
    await mkdir(extra, { recursive: true });
    const fillers = await Promise.all(Array.from({ length: 21 }, (_, index) => buildDeb({ name: `filler-${String(index).padStart(2, '0')}`, version: '0.1', arch: 'all' }, extra)));
    for (let start = 0; start < fillers.length; start += 4) {
      await Promise.all(fillers.slice(start, start + 4).map((file) => uploadViaApi(debRepo.id, file, 'debian/bullseye')));
    }
    await page.reload();
    // Next at once, as soon as the page can take it: the search box's delay must not turn it back
    const [nextPage] = await Promise.all([page.waitForRequest((request) => request.url().includes('/packages?') && request.url().includes('page=1')), button('Next').click()]);
    expect(new URL(nextPage.url()).searchParams.get('size')).toBe('20');
    await visible('Page 2 of 2');
    await visible('23 packages');
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Packages"] tbody tr').length === 3);
    // back on the tab, its list comes from the cache at once: Next, within the search box's delay
    await tab('Overview').click();
    await tab('Packages').click();
    await button('Next').click();
    await pause(600);
    expect(await page.getByRole('navigation', { name: 'Pages' }).innerText()).toContain('Page 2 of 2');
    expect(await table.locator('tbody tr').count()).toBe(3);
    expect(await button('Next').isDisabled()).toBe(true);
    await button('Previous').click();
    await visible('Page 1 of 2');
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Packages"] tbody tr').length === 20);

    await page.getByLabel('Search packages').fill('filler-00');
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Packages"] tbody tr').length === 1);
    const dismissed = answerNextConfirm(page, false);
    await page.getByRole('button', { name: 'Delete filler-00 0.1' }).click();
    expect(await dismissed).toBe('Are you sure you want to delete "filler-00 0.1"? This action cannot be undone.');
    await pause(500);
    expect(await table.locator('tbody tr').count()).toBe(1);
    const accepted = answerNextConfirm(page, true);
    await page.getByRole('button', { name: 'Delete filler-00 0.1' }).click();
    await accepted;
    await visible('No packages found');
    await visible('22 packages');
  });

  it('Install: a token the page does not hold is hidden until revealed; scripts wait for it', async () => {
    await page.goto(at(repoPath(debRepo, 'install')));
    const row = page.getByRole('listitem', { name: 'Token ci-deployment' });
    await row.waitFor();
    expect(await row.innerText()).toContain('Hidden for security');
    await page.getByLabel('Select Token').selectOption({ label: 'ci-deployment' });
    await visible('Reveal it to see the installation commands');
    expect(await page.getByRole('region', { name: 'Automated Installation' }).count()).toBe(0);
    await screenshot(page, 'repository-install-hidden');
    await row.getByRole('button', { name: 'Reveal' }).click();
    await row.getByTestId('token-value').waitFor();
    expect(await row.getByTestId('token-value').innerText()).toBe(`${commands.token.slice(0, 8)}…`);
    expect(await codeIn('Automated Installation')).toBe(commands.oneLiner);

    await button('Create Token').click();
    await page.getByLabel('Token Name').fill('throwaway');
    await button('Create').click();
    const throwaway = page.getByRole('listitem', { name: 'Token throwaway' });
    await throwaway.waitFor();
    const confirmed = answerNextConfirm(page, true);
    await throwaway.getByRole('button', { name: 'Delete token throwaway' }).click();
    expect(await confirmed).toBe('Are you sure you want to delete token "throwaway"? This action cannot be undone.');
    await throwaway.waitFor({ state: 'detached' });
  });

  it('the copied commands install the package in a Debian root: one-liner, then the manual steps', async () => {
    const oneLinerRoot = await freshDebianRoot();
    roots.push(oneLinerRoot);
    const installed = await runInRoot(oneLinerRoot, commands.oneLiner);
    expect(installed.code, installed.stderr).toBe(0);
    const example = await runInRoot(oneLinerRoot, commands.example);
    expect(example.code, example.stderr).toBe(0);
    const packageName = commands.example.split(' ').at(-1)!;
    expect((await runInRoot(oneLinerRoot, `dpkg-query -W -f '\${Status}' ${packageName}`)).stdout).toBe('install ok installed');

    const manualRoot = await freshDebianRoot();
    roots.push(manualRoot);
    const manual = await runInRoot(manualRoot, ['cd /root', commands.download, commands.chmod, commands.run].join(' && '));
    expect(manual.code, manual.stderr).toBe(0);
    const second = await runInRoot(manualRoot, commands.example);
    expect(second.code, second.stderr).toBe(0);
    expect((await runInRoot(manualRoot, `dpkg-query -W -f '\${Status}' ${packageName}`)).stdout).toBe('install ok installed');
  });
});

describe('repository page (375 px)', () => {
  it('screenshots every tab on a small screen', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    for (const name of ['overview', 'install', 'packages', 'upload', 'keys', 'settings']) {
      await page.goto(at(repoPath(debRepo, name)));
      await page.getByRole('heading', { level: 1, name: debRepo.name }).waitFor();
      expect(await page.getByRole('tab', { selected: true }).innerText()).toBe(name[0].toUpperCase() + name.slice(1));
      if (name === 'install') {
        await page.getByLabel('Select Token').selectOption({ label: 'ci-deployment' });
        await page.getByRole('listitem', { name: 'Token ci-deployment' }).getByRole('button', { name: 'Reveal' }).click();
        await page.getByRole('region', { name: 'Automated Installation' }).waitFor();
      }
      if (name === 'packages') await page.getByRole('table', { name: 'Packages' }).waitFor();
      if (name === 'upload') {
        await page.getByLabel('Distribution').selectOption('ubuntu/noble');
        await page.locator('input[type=file]').setInputFiles([asPayload(join(work, 'hello-packyard_1.0-1_all.deb')), { name: 'bad.txt', mimeType: 'text/plain', buffer: Buffer.from('x') }]);
      }
      if (name === 'keys') await page.waitForFunction(() => (document.getElementById('public-key-url') as HTMLInputElement | null)?.value.endsWith('/gpg.key'));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      const hiddenTabs = await page.getByRole('tablist').evaluate((list) => list.scrollWidth - list.clientWidth);
      expect(hiddenTabs, 'all six tabs fit').toBeLessThanOrEqual(0);
      await screenshot(page, `repository-${name}`);
    }
    await page.goto(at(`/workspaces/${workspaceId}/repos/no-such-repository`));
    await visible('Repository not found');
    await screenshot(page, 'repository-not-found');
  });
});
