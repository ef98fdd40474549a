import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  CodeBlock,
  Dialog,
  EmptyState,
  errorMessage,
  ErrorPanel,
  Field,
  formatDate,
  Icon,
  IconButton,
  PageHeader,
  Pager,
  SecretShownOnceDialog,
  Spinner,
  useWorkspace,
} from '@packyard/console-kit';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import {
  DELIVERY_PAGE_SIZE,
  useCreateWebhook,
  useDeleteWebhook,
  usePingWebhook,
  useRedeliver,
  useUpdateWebhook,
  useWebhookDeliveries,
  useWebhookDelivery,
  useWebhooks,
  type Webhook,
  type WebhookDelivery,
} from './webhook-resources';
import { ALL_WEBHOOK_EVENTS, canRedeliver, deliveryResponse, deliveryStatus, eventLabel, WEBHOOK_EVENTS, webhookDeleteConfirmation, webhookUrlProblem } from './webhook-rules';

function CreateWebhookDialog({ workspaceId, open, onClose, onCreated }: { workspaceId: string; open: boolean; onClose: () => void; onCreated: (secret: string) => void }) {
  const create = useCreateWebhook(workspaceId);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(ALL_WEBHOOK_EVENTS);
  const [active, setActive] = useState(true);
  const [touched, setTouched] = useState(false);
  const urlProblem = touched ? webhookUrlProblem(url) : undefined;
  const reset = () => {
    setUrl('');
    setEvents(ALL_WEBHOOK_EVENTS);
    setActive(true);
    setTouched(false);
    create.reset();
  };
  const close = () => {
    reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (webhookUrlProblem(url) || events.length === 0) return;
    create.mutate(
      { url: url.trim(), events, active },
      {
        onSuccess: (created) => {
          reset();
          onCreated(created.secret);
        },
      },
    );
  };
  const toggle = (value: string, checked: boolean) => setEvents(checked ? ALL_WEBHOOK_EVENTS.filter((e) => e === value || events.includes(e)) : events.filter((e) => e !== value));
  return (
    <Dialog open={open} onClose={close} title="Add Webhook" description="Packyard POSTs a signed JSON body to this URL when the events you choose happen in this workspace.">
      <form className="pk-form" onSubmit={submit} noValidate aria-label="Add webhook">
        {create.isError && (
          <Alert>{errorMessage(create.error, 'Could not add the webhook')}</Alert>
        )}
        <Field label="Payload URL" name="url" type="url" placeholder="https://ci.example.com/hooks/packyard" value={url} error={urlProblem} onChange={(event) => setUrl(event.target.value)} onBlur={() => setTouched(true)} />
        <fieldset className="pk-form" style={{ border: 'none', margin: 0, padding: 0, gap: 10 }}>
          <legend className="pk-field__label" style={{ marginBottom: 8 }}>
            Events
          </legend>
          {WEBHOOK_EVENTS.map((choice) => (
            <Checkbox key={choice.value} label={choice.label} description={choice.description || undefined} checked={events.includes(choice.value)} onChange={(event) => toggle(choice.value, event.target.checked)} />
          ))}
          {touched && events.length === 0 && (
            <p className="pk-field__error" role="alert">
              Choose at least one event
            </p>
          )}
        </fieldset>
        <Checkbox label="Active" description="Deliveries are sent while the webhook is active" checked={active} onChange={(event) => setActive(event.target.checked)} />
        <div className="pk-dialog__footer">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={create.isPending}>
            {create.isPending ? 'Adding...' : 'Add Webhook'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function WebhookRow({ workspaceId, hook, selected, onSelect }: { workspaceId: string; hook: Webhook; selected: boolean; onSelect: () => void }) {
  const ping = usePingWebhook(workspaceId);
  const update = useUpdateWebhook(workspaceId);
  const remove = useDeleteWebhook(workspaceId);
  const last = hook.lastDelivery;
  const failure = ping.error ?? update.error ?? remove.error;
  return (
    <li className="pk-spread" style={{ flexWrap: 'wrap' }} aria-label={`Webhook ${hook.url}`}>
      <div style={{ minWidth: 0, display: 'grid', gap: 6, flex: '1 1 300px' }}>
        <div className="pk-row">
          <strong className="pk-mono" style={{ overflowWrap: 'anywhere' }}>
            {hook.url}
          </strong>
          <Badge tone={hook.active ? 'green' : 'neutral'}>{hook.active ? 'Active' : 'Inactive'}</Badge>
        </div>
        <div className="pk-row" style={{ gap: 6 }}>
          {hook.events.map((event) => (
            <Badge key={event} tone="blue">
              {event}
            </Badge>
          ))}
        </div>
        <div className="pk-muted" style={{ fontSize: 13 }}>
          {last ? (
            <>
              Last delivery {formatDate(last.at)}: {deliveryStatus(last.status).label}
              {last.statusCode ? ` (HTTP ${last.statusCode})` : ''}
            </>
          ) : (
            'No deliveries yet'
          )}
        </div>
        {failure && (
          <Alert>{errorMessage(failure, 'The change failed')}</Alert>
        )}
      </div>
      <div className="pk-row">
        <Button size="sm" variant={selected ? 'primary' : 'secondary'} icon="activity" aria-pressed={selected} onClick={onSelect}>
          Deliveries
        </Button>
        <Button size="sm" icon="refresh" disabled={ping.isPending || !hook.active} onClick={() => ping.mutate(hook.id, { onSuccess: onSelect })}>
          Send test
        </Button>
        <Button size="sm" disabled={update.isPending} onClick={() => update.mutate({ id: hook.id, active: !hook.active })}>
          {hook.active ? 'Turn off' : 'Turn on'}
        </Button>
        <IconButton
          label={`Delete webhook ${hook.url}`}
          icon="trash"
          variant="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(webhookDeleteConfirmation(hook.url))) remove.mutate(hook.id);
          }}
        />
      </div>
    </li>
  );
}

function DeliveryDialog({ workspaceId, webhookId, deliveryId, onClose }: { workspaceId: string; webhookId: string; deliveryId: string | undefined; onClose: () => void }) {
  const delivery = useWebhookDelivery(workspaceId, webhookId, deliveryId);
  const data = delivery.data;
  let body = data?.body ?? '';
  try {
    body = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // shown as sent
  }
  return (
    <Dialog open={Boolean(deliveryId)} onClose={onClose} title={data ? `${eventLabel(data.event)} delivery` : 'Delivery'} description={deliveryId && <span className="pk-mono">{deliveryId}</span>}>
      {delivery.isError ? (
        <ErrorPanel title="Could not load the delivery" message={delivery.error.message} />
      ) : !data ? (
        <Spinner label="Loading the delivery" />
      ) : (
        <div className="pk-form">
          <div className="pk-table-wrap">
            <table className="pk-table pk-table--cards" aria-label="Attempts">
              <thead>
                <tr>
                  <th scope="col">Attempt</th>
                  <th scope="col">When</th>
                  <th scope="col">Response</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {data.attemptLog.length === 0 ? (
                  <tr>
                    <td colSpan={4}>{deliveryResponse(data)}</td>
                  </tr>
                ) : (
                  data.attemptLog.map((attempt) => (
                    <tr key={attempt.attempt}>
                      <td data-label="Attempt">
                        <Badge tone={attempt.succeeded ? 'green' : 'red'}>#{attempt.attempt}</Badge>
                      </td>
                      <td data-label="When">{formatDate(attempt.at)}</td>
                      <td data-label="Response" className="pk-table__wide" style={{ overflowWrap: 'anywhere' }}>
                        {attempt.statusCode ? `HTTP ${attempt.statusCode}` : attempt.error}
                        {attempt.responseExcerpt && <div className="pk-muted pk-mono">{attempt.responseExcerpt.slice(0, 300)}</div>}
                      </td>
                      <td data-label="Duration">{attempt.durationMs} ms</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
          {data.nextAttemptAt && <p className="pk-muted">Next attempt {formatDate(data.nextAttemptAt)}</p>}
          <h3 className="pk-field__label">Body</h3>
          <CodeBlock code={body} copyLabel="Copy body" wrap />
        </div>
      )}
    </Dialog>
  );
}

function DeliveryLog({ workspaceId, hook }: { workspaceId: string; hook: Webhook }) {
  const [page, setPage] = useState(0);
  const [opened, setOpened] = useState<string>();
  const deliveries = useWebhookDeliveries(workspaceId, hook.id, page);
  const redeliver = useRedeliver(workspaceId);
  const pages = Math.max(1, Math.ceil((deliveries.data?.total ?? 0) / DELIVERY_PAGE_SIZE));
  const statusCell = (delivery: WebhookDelivery) => {
    const status = deliveryStatus(delivery.status);
    return <Badge tone={status.tone}>{status.label}</Badge>;
  };
  return (
    <section className="pk-form" aria-label="Delivery log">
      <h2 className="pk-section-title" style={{ overflowWrap: 'anywhere' }}>
        Deliveries to <span className="pk-mono">{hook.url}</span>
      </h2>
      {redeliver.isError && (
        <Alert>{errorMessage(redeliver.error, 'Could not redeliver')}</Alert>
      )}
      {deliveries.isPending ? (
        <Spinner label="Loading deliveries" />
      ) : deliveries.isError ? (
        <ErrorPanel title="Could not load the deliveries" message={deliveries.error.message} onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data.items.length === 0 ? (
        <EmptyState icon="activity" title="No deliveries yet">
          Send a test, or wait for the next event this webhook listens to.
        </EmptyState>
      ) : (
        <>
          <div className="pk-table-wrap">
            <table className="pk-table pk-table--cards" aria-label="Deliveries">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Response</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">
                    <span className="pk-visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.items.map((delivery) => (
                  <tr key={delivery.id}>
                    <td data-label="When">{formatDate(delivery.createdAt)}</td>
                    <td data-label="Event">{eventLabel(delivery.event)}</td>
                    <td data-label="Status">{statusCell(delivery)}</td>
                    <td data-label="Response" className="pk-table__wide" style={{ overflowWrap: 'anywhere' }}>
                      {deliveryResponse(delivery)}
                    </td>
                    <td data-label="Duration">{delivery.lastDurationMs === null ? '—' : `${delivery.lastDurationMs} ms`}</td>
                    <td data-label="Attempts">{delivery.attempts}</td>
                    <td data-label="Actions">
                      <div className="pk-row" style={{ flexWrap: 'nowrap' }}>
                        <Button size="sm" onClick={() => setOpened(delivery.id)} aria-label={`Details of ${eventLabel(delivery.event)} delivery ${delivery.id}`}>
                          Details
                        </Button>
                        {canRedeliver(delivery.status) && (
                          <Button
                            size="sm"
                            icon="refresh"
                            disabled={redeliver.isPending || !hook.active}
                            aria-label={`Redeliver ${eventLabel(delivery.event)} delivery ${delivery.id}`}
                            onClick={() => redeliver.mutate({ webhookId: hook.id, deliveryId: delivery.id })}
                          >
                            Redeliver
                          </Button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} summary={`${deliveries.data.total} ${deliveries.data.total === 1 ? 'delivery' : 'deliveries'}`} onChange={setPage} />
        </>
      )}
      <DeliveryDialog workspaceId={workspaceId} webhookId={hook.id} deliveryId={opened} onClose={() => setOpened(undefined)} />
    </section>
  );
}

/** A workspace's webhooks: add one (its secret shown once), send a test, turn it off or on, delete it, and read and redeliver its deliveries. */
export default function WebhooksPage() {
  const workspaceId = useParams().workspaceId ?? '';
  const workspace = useWorkspace(workspaceId);
  const webhooks = useWebhooks(workspaceId);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<string>();
  const [selectedId, setSelectedId] = useState<string>();
  const selected = webhooks.data?.find((hook) => hook.id === selectedId) ?? webhooks.data?.[0];

  return (
    <div className="pk-page">
      <PageHeader
        title={`${workspace.data?.name ?? 'Workspace'} Webhooks`}
        description="Signed HTTP calls to your URLs when packages are published or deleted, repositories come and go, or tokens are revoked."
        actions={
          <Button variant="primary" icon="plus" onClick={() => setAdding(true)}>
            Add Webhook
          </Button>
        }
      >
        <Link to={`/workspaces/${workspaceId}/repos`} className="pk-back-link">
          <Icon name="arrowLeft" size={15} /> Back to Repositories
        </Link>
      </PageHeader>
      {webhooks.isPending ? (
        <Spinner label="Loading webhooks" />
      ) : webhooks.isError ? (
        <ErrorPanel title="Could not load webhooks" message={webhooks.error.message} onRetry={() => void webhooks.refetch()} />
      ) : webhooks.data.length === 0 ? (
        <EmptyState
          icon="bell"
          title="No webhooks yet"
          action={
            <Button variant="primary" icon="plus" onClick={() => setAdding(true)}>
              Add Webhook
            </Button>
          }
        >
          Tell your CI or chat when a package can be installed.
        </EmptyState>
      ) : (
        <>
          <Card>
            <ul className="pk-list" aria-label="Webhooks">
              {webhooks.data.map((hook) => (
                <WebhookRow key={hook.id} workspaceId={workspaceId} hook={hook} selected={hook.id === selected?.id} onSelect={() => setSelectedId(hook.id)} />
              ))}
            </ul>
          </Card>
          {selected && <DeliveryLog key={selected.id} workspaceId={workspaceId} hook={selected} />}
        </>
      )}
      <CreateWebhookDialog
        workspaceId={workspaceId}
        open={adding}
        onClose={() => setAdding(false)}
        onCreated={(created) => {
          setAdding(false);
          setSecret(created);
        }}
      />
      <SecretShownOnceDialog title="Webhook Added" noun="webhook secret" secret={secret} onDone={() => setSecret(undefined)} />
    </div>
  );
}
