import { Badge, Button, Card, CodeBlock, errorMessage, formatBytes, Icon, type IconName, ProgressBar, type Repository, Select } from '@packyard/console-kit';
import { Link } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { type DragEvent, useRef, useState } from 'react';
import {
  canStartUpload,
  ciUploadCommand,
  DISTRIBUTION_PROMPT,
  DISTRIBUTION_REQUIRED_ALERT,
  DISTRIBUTION_REQUIRED_ERROR,
  MAX_UPLOAD_LABEL,
  packageExtension,
  queueItem,
  UPLOAD_FAILED,
  type UploadItem,
  uploadDistributions,
  uploadStatusText,
} from '../repository-rules';
import { refreshAfterPackageChange, useSnippets, useUploadPackage } from '../repository-resources';

const STATUS_ICONS: Record<UploadItem['status'], IconName> = { pending: 'package', uploading: 'upload', completed: 'check', error: 'alert' };

export function UploadTab({ workspaceId, repository }: { workspaceId: string; repository: Repository }) {
  const queryClient = useQueryClient();
  const upload = useUploadPackage(workspaceId, repository.id);
  const [distribution, setDistribution] = useState('');
  const [queue, setQueue] = useState<UploadItem[]>([]);
  const [dragging, setDragging] = useState(false);
  const [uploadingAll, setUploadingAll] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const extension = packageExtension(repository.kind);
  // the API's origin as apt and dnf are told it (PUBLIC_URL), else this page's
  const snippets = useSnippets(repository.id);
  const origin = snippets.data ? new URL(snippets.data.repositoryUrl).origin : window.location.origin;

  const update = (id: string, change: Partial<UploadItem>) => setQueue((items) => items.map((item) => (item.id === id ? { ...item, ...change } : item)));

  const addFiles = (files: FileList | File[] | null) => {
    if (!distribution) {
      window.alert(DISTRIBUTION_REQUIRED_ALERT);
      return;
    }
    const chosen = Array.from(files ?? []);
    if (chosen.length > 0) setQueue((items) => [...items, ...chosen.map((file) => queueItem(file, distribution, repository.kind))]);
  };

  /** Uploads one item; true when it completed. The caller refreshes. */
  const send = async (item: UploadItem): Promise<boolean> => {
    if (!item.distribution) {
      update(item.id, { status: 'error', error: DISTRIBUTION_REQUIRED_ERROR });
      return false;
    }
    update(item.id, { status: 'uploading', progress: 0, error: undefined });
    try {
      await upload(item.file, item.distribution, (progress) => update(item.id, { progress }));
      update(item.id, { status: 'completed', progress: 100 });
      return true;
    } catch (error) {
      update(item.id, { status: 'error', error: errorMessage(error, UPLOAD_FAILED) || UPLOAD_FAILED });
      return false;
    }
  };

  const refresh = () => refreshAfterPackageChange(queryClient, workspaceId, repository.id);

  const uploadOne = async (item: UploadItem) => {
    if (await send(item)) await refresh();
  };

  // One after another, then one refresh for the lot (spec §4).
  const uploadAll = async () => {
    setUploadingAll(true);
    let completed = 0;
    try {
      for (const item of queue.filter((entry) => entry.status === 'pending')) if (await send(item)) completed += 1;
    } finally {
      setUploadingAll(false);
    }
    if (completed > 0) await refresh();
  };

  const pending = queue.filter((item) => item.status === 'pending').length;
  const busy = uploadingAll || queue.some((item) => item.status === 'uploading');

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    addFiles(event.dataTransfer.files);
  };

  return (
    <div className="pk-stack">
      <Card>
        <h2 className="pk-section-title">Upload Packages</h2>
        <Select
          label="Distribution"
          name="distribution"
          value={distribution}
          onChange={(event) => setDistribution(event.target.value)}
          options={[{ value: '', label: DISTRIBUTION_PROMPT }, ...uploadDistributions(repository.kind).map((value) => ({ value, label: value }))]}
          hint="Where the packages are published: distro/version."
          required
        />
        <div
          className={['pk-dropzone', dragging && distribution ? 'pk-dropzone--active' : '', distribution ? '' : 'pk-dropzone--disabled'].filter(Boolean).join(' ')}
          aria-disabled={!distribution}
          data-testid="drop-zone"
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <Icon name="upload" size={28} />
          <p>
            <strong>Drag and drop {extension} files here</strong>
          </p>
          <p className="pk-muted">{distribution ? `They will be published for ${distribution}.` : 'Select a distribution first.'}</p>
          <Button variant="primary" icon="plus" disabled={!distribution} onClick={() => input.current?.click()}>
            Choose Files
          </Button>
          <input
            ref={input}
            type="file"
            multiple
            accept={extension}
            hidden
            aria-label="Package files"
            onChange={(event) => {
              addFiles(event.target.files);
              event.target.value = '';
            }}
          />
          <p className="pk-muted pk-small">Maximum file size: {MAX_UPLOAD_LABEL}</p>
        </div>
      </Card>

      {queue.length > 0 && (
        <Card>
          <div className="pk-spread pk-wrap">
            <h2 className="pk-section-title">Upload Queue ({queue.length})</h2>
            <div className="pk-row">
              <Button variant="primary" icon="upload" disabled={pending === 0 || busy} onClick={() => void uploadAll()}>
                Upload All ({pending})
              </Button>
              <Button disabled={busy} onClick={() => setQueue([])}>
                Clear All
              </Button>
            </div>
          </div>
          <ul className="pk-list pk-upload-queue" aria-label="Upload queue">
            {queue.map((item) => (
              <li key={item.id} className={`pk-upload-item pk-upload-item--${item.status}`}>
                <span className="pk-upload-item__icon">
                  <Icon name={STATUS_ICONS[item.status]} size={20} />
                </span>
                <div className="pk-upload-item__body">
                  <div className="pk-row pk-upload-item__title">
                    <strong className="pk-upload-item__name">{item.file.name}</strong>
                    {item.distribution && <Badge tone="blue">{item.distribution}</Badge>}
                  </div>
                  <div className="pk-muted pk-small">
                    {formatBytes(item.file.size)} · <span className={item.status === 'error' ? 'pk-error-text' : undefined}>{uploadStatusText(item)}</span>
                  </div>
                  {item.status === 'uploading' && <ProgressBar percent={item.progress} label={`Uploading ${item.file.name}`} />}
                </div>
                <div className="pk-row pk-row--tight pk-upload-item__actions">
                  <Button size="sm" icon="upload" disabled={!canStartUpload(item) || busy} onClick={() => void uploadOne(item)}>
                    Upload
                  </Button>
                  <Button size="sm" variant="ghost" icon="close" disabled={item.status === 'uploading'} onClick={() => setQueue((items) => items.filter((entry) => entry.id !== item.id))}>
                    Remove
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        </Card>
      )}

      <Card>
        <section aria-label="Upload from CI">
          <h2 className="pk-section-title">Upload from CI</h2>
          <p className="pk-muted">
            Create an access token with the <strong>publish</strong> scope on the <Link to="/tokens">Access Tokens</Link> page and keep it in the job's secrets as
            PACKYARD_TOKEN. The command returns once the package is published.
          </p>
          <CodeBlock wrap code={ciUploadCommand(origin, workspaceId, repository, distribution)} copyLabel="Copy CI upload command" />
        </section>
      </Card>

      <div className="pk-notice" role="note">
        <div>
        <strong>Upload instructions</strong>
        <ul>
          <li>Select the distribution the packages are built for before adding files. Uploads without a distribution are rejected.</li>
          <li>
            Only {extension} files are accepted in this {repository.kind} repository, up to {MAX_UPLOAD_LABEL} each.
          </li>
          <li>Packages are signed and published for the chosen distribution a few seconds after the upload.</li>
        </ul>
        </div>
      </div>
    </div>
  );
}
