import { ADVISORY_SEVERITIES, ADVISORY_TYPES, isUploadDistribution, RPM_UPLOAD_DISTRIBUTIONS } from '@packyard/formats';
import { assertNever, conflict, invalid, notFound, type Decider } from '@packyard/platform';
import type { Advisory, AdvisoryPackage, AdvisoryReference } from '@packyard/proto/packyard/repository/v1/advisories';
import type { AdvisoriesEvent } from './advisory.events';

export interface AdvisoriesState {
  /** the ids of the repository's advisories now */
  ids: Record<string, true>;
  /** per year of issue, the highest PKY-<year>-<number> ever used: deleted numbers are not handed out again (dnf caches advisories by id) */
  lastNumbers: Record<string, number>;
}

/** what the API takes: everything but the id and the dates may be left empty */
export type AdvisoryInput = Omit<Advisory, 'repositoryId' | 'createdAt'>;

export type AdvisoriesCommand =
  | { type: 'CreateAdvisory'; repositoryId: string; advisory: AdvisoryInput; now: string }
  | { type: 'DeleteAdvisory'; repositoryId: string; advisoryId: string; now: string };

const ADVISORY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const GENERATED_ID = /^PKY-(\d{4})-(\d+)$/;
/** rpm's own limits on NEVRA parts, tightened to what can sit in a file name and a URL */
const PACKAGE_NAME = /^[A-Za-z0-9_+][A-Za-z0-9._+-]{0,127}$/;
const VERSION_PART = /^[A-Za-z0-9_+~^][A-Za-z0-9._+~^]{0,63}$/;
const ARCH = /^[A-Za-z0-9_]{1,32}$/;
const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
const REFERENCE_TYPES = ['cve', 'bugzilla', 'self', 'other'];
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 65_536;
const MAX_PACKAGES = 1_000;
const MAX_REFERENCES = 200;

const generatedId = (year: string, number: number) => `PKY-${year}-${String(number).padStart(4, '0')}`;

function validDate(field: 'issuedAt' | 'updatedAt', value: string): string {
  const time = Date.parse(value);
  if (!value || Number.isNaN(time)) throw invalid('PACKYARD_ADVISORY_INVALID_DATE', `${field} must be an ISO 8601 date, e.g. 2026-03-04T05:06:07Z`, { field });
  return new Date(time).toISOString();
}

function validReference(reference: AdvisoryReference, index: number): AdvisoryReference {
  const type = reference.type.trim().toLowerCase() || 'other';
  const id = reference.id.trim();
  const field = `references[${index}]`;
  if (!REFERENCE_TYPES.includes(type)) throw invalid('PACKYARD_ADVISORY_INVALID_REFERENCE', `${field}.type must be one of ${REFERENCE_TYPES.join(', ')}`, { field });
  if (!id && !reference.href) throw invalid('PACKYARD_ADVISORY_INVALID_REFERENCE', `${field} needs an id or an href`, { field });
  if (type === 'cve' && !CVE_ID.test(id)) throw invalid('PACKYARD_ADVISORY_INVALID_REFERENCE', `${field}.id must be a CVE id such as CVE-2026-12345`, { field });
  const href = reference.href.trim() || (type === 'cve' ? `https://www.cve.org/CVERecord?id=${id}` : '');
  if (href && !/^https?:\/\/[^\s]+$/.test(href)) throw invalid('PACKYARD_ADVISORY_INVALID_REFERENCE', `${field}.href must be an http(s) URL`, { field });
  return { type, id, href, title: reference.title.trim() || id };
}

function validPackage(pkg: AdvisoryPackage, index: number): AdvisoryPackage {
  const field = `packages[${index}]`;
  const refuse = (what: string) => invalid('PACKYARD_ADVISORY_INVALID_PACKAGE', `${field}.${what}`, { field });
  if (!PACKAGE_NAME.test(pkg.name)) throw refuse('name must be an rpm package name');
  if (!Number.isInteger(pkg.epoch) || pkg.epoch < 0) throw refuse('epoch must be a whole number, 0 or more');
  if (!VERSION_PART.test(pkg.version)) throw refuse('version must be an rpm version (letters, digits, ".", "_", "+", "~", "^")');
  if (!VERSION_PART.test(pkg.release)) throw refuse('release must be an rpm release (letters, digits, ".", "_", "+", "~", "^")');
  if (!ARCH.test(pkg.arch)) throw refuse('arch must be an rpm architecture such as x86_64 or noarch');
  if (!pkg.uploadDistribution || !isUploadDistribution('RPM', pkg.uploadDistribution)) throw refuse(`distribution must be one of: ${RPM_UPLOAD_DISTRIBUTIONS.join(', ')}`);
  return { name: pkg.name, epoch: pkg.epoch, version: pkg.version, release: pkg.release, arch: pkg.arch, uploadDistribution: pkg.uploadDistribution };
}

function validSeverity(raw: string): string {
  const severity = raw.trim();
  if (!severity) return '';
  const known = ADVISORY_SEVERITIES.find((name) => name.toLowerCase() === severity.toLowerCase());
  if (!known) throw invalid('PACKYARD_ADVISORY_INVALID_SEVERITY', `Advisory severity must be one of ${ADVISORY_SEVERITIES.join(', ')}`, { field: 'severity' });
  return known;
}

/**
 * The advisories (errata) of one repository. Ids are the user's or the next
 * PKY-<year of issue>-<number>; each advisory names the packages that fix it and the
 * upload distribution whose indices carry it.
 */
export const advisoriesDecider: Decider<AdvisoriesState, AdvisoriesCommand, AdvisoriesEvent> = {
  initialState: () => ({ ids: {}, lastNumbers: {} }),

  decide(command, state) {
    switch (command.type) {
      case 'CreateAdvisory': {
        const input = command.advisory;
        const type = input.type.trim().toLowerCase();
        if (!(ADVISORY_TYPES as readonly string[]).includes(type)) {
          throw invalid('PACKYARD_ADVISORY_INVALID_TYPE', `Advisory type must be one of ${ADVISORY_TYPES.join(', ')}`, { field: 'type' });
        }
        const title = input.title.trim();
        if (!title) throw invalid('PACKYARD_ADVISORY_TITLE_REQUIRED', 'Advisory title is required', { field: 'title' });
        if (title.length > MAX_TITLE) throw invalid('PACKYARD_ADVISORY_INVALID_TITLE', `Advisory title must be at most ${MAX_TITLE} characters`, { field: 'title' });
        if (input.description.length > MAX_DESCRIPTION) {
          throw invalid('PACKYARD_ADVISORY_INVALID_DESCRIPTION', `Advisory description must be at most ${MAX_DESCRIPTION} characters`, { field: 'description' });
        }
        if (input.packages.length === 0 || input.packages.length > MAX_PACKAGES) {
          throw invalid('PACKYARD_ADVISORY_PACKAGES_REQUIRED', `An advisory names 1 to ${MAX_PACKAGES} packages that fix it`, { field: 'packages' });
        }
        if (input.references.length > MAX_REFERENCES) {
          throw invalid('PACKYARD_ADVISORY_INVALID_REFERENCE', `An advisory has at most ${MAX_REFERENCES} references`, { field: 'references' });
        }
        const issuedAt = validDate('issuedAt', input.issuedAt.trim() || command.now);
        const updatedAt = validDate('updatedAt', input.updatedAt.trim() || issuedAt);
        if (updatedAt < issuedAt) throw invalid('PACKYARD_ADVISORY_INVALID_DATE', 'updatedAt must not be before issuedAt', { field: 'updatedAt' });
        const year = issuedAt.slice(0, 4);
        const id = input.id.trim() || generatedId(year, (state.lastNumbers[year] ?? 0) + 1);
        if (!ADVISORY_ID.test(id)) {
          throw invalid('PACKYARD_ADVISORY_INVALID_ID', 'Advisory id may only contain letters, digits, ".", "_", ":" and "-", start with a letter or digit and be at most 64 characters', {
            field: 'id',
          });
        }
        if (state.ids[id]) throw conflict('PACKYARD_ADVISORY_EXISTS', `Advisory ${id} already exists in this repository`);
        return [
          {
            type: 'AdvisoryCreated',
            data: {
              advisory: {
                id,
                repositoryId: command.repositoryId,
                type,
                severity: validSeverity(input.severity),
                title,
                description: input.description,
                issuedAt,
                updatedAt,
                references: input.references.map(validReference),
                packages: input.packages.map(validPackage),
                createdAt: command.now,
              },
            },
          },
        ];
      }
      case 'DeleteAdvisory':
        if (!state.ids[command.advisoryId]) throw notFound('PACKYARD_ADVISORY_NOT_FOUND', 'Advisory not found');
        return [{ type: 'AdvisoryDeleted', data: { repositoryId: command.repositoryId, advisoryId: command.advisoryId, deletedAt: command.now } }];
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'AdvisoryCreated': {
        const { id } = event.data.advisory!;
        const generated = GENERATED_ID.exec(id);
        const lastNumbers = generated && Number(generated[2]) > (state.lastNumbers[generated[1]] ?? 0) ? { ...state.lastNumbers, [generated[1]]: Number(generated[2]) } : state.lastNumbers;
        return { ids: { ...state.ids, [id]: true }, lastNumbers };
      }
      case 'AdvisoryDeleted': {
        const { [event.data.advisoryId]: _deleted, ...ids } = state.ids;
        return { ...state, ids };
      }
      default:
        return assertNever(event);
    }
  },
};
