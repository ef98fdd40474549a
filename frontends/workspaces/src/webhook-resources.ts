import { useConsole } from '@packyard/console-kit';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

// A workspace's webhooks and their delivery log (/v1/workspaces/{id}/webhooks): components
// use these hooks and never write a raw query key.

export type DeliveryStatus = 'awaiting-publication' | 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface Webhook {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  active: boolean;
  createdAt: string;
  secret?: string;
  lastDelivery: { status: DeliveryStatus; statusCode: number | null; at: string } | null;
}

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  event: string;
  status: DeliveryStatus;
  createdAt: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string;
  lastResponseExcerpt: string;
  cancelReason: string;
}

export interface WebhookAttempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string;
  error: string;
  succeeded: boolean;
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  body: string;
  attemptLog: WebhookAttempt[];
}

export interface WebhookPayload {
  url: string;
  events: string[];
  active: boolean;
}

export const DELIVERY_PAGE_SIZE = 20;
/** while a delivery is on its way the log is read again this often */
const IN_FLIGHT_REFRESH_MS = 2_000;
/** otherwise this often, so deliveries of new events appear on an open page */
const IDLE_REFRESH_MS = 5_000;

export const webhookKeys = {
  all: ['webhooks'] as const,
  inWorkspace: (workspaceId: string) => [...webhookKeys.all, workspaceId] as const,
  list: (workspaceId: string) => [...webhookKeys.inWorkspace(workspaceId), 'list'] as const,
  deliveries: (workspaceId: string, webhookId: string) => [...webhookKeys.inWorkspace(workspaceId), webhookId, 'deliveries'] as const,
  deliveryPage: (workspaceId: string, webhookId: string, page: number) => [...webhookKeys.deliveries(workspaceId, webhookId), 'page', page] as const,
  delivery: (workspaceId: string, webhookId: string, deliveryId: string) => [...webhookKeys.deliveries(workspaceId, webhookId), 'detail', deliveryId] as const,
};

const hooksPath = (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/webhooks`;
const hookPath = (workspaceId: string, webhookId: string) => `${hooksPath(workspaceId)}/${encodeURIComponent(webhookId)}`;
const inFlight = (status: DeliveryStatus) => status === 'pending' || status === 'awaiting-publication';

export function useWebhooks(workspaceId: string) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: webhookKeys.list(workspaceId),
      queryFn: () => api.get<Webhook[]>(hooksPath(workspaceId)),
      refetchInterval: (query) => (query.state.data?.some((hook) => hook.lastDelivery && inFlight(hook.lastDelivery.status)) ? IN_FLIGHT_REFRESH_MS : IDLE_REFRESH_MS),
    }),
  );
}

export function useWebhookDeliveries(workspaceId: string, webhookId: string, page: number) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: webhookKeys.deliveryPage(workspaceId, webhookId, page),
      queryFn: () => api.get<{ items: WebhookDelivery[]; total: number }>(`${hookPath(workspaceId, webhookId)}/deliveries`, { query: { page, size: DELIVERY_PAGE_SIZE } }),
      enabled: Boolean(webhookId),
      placeholderData: keepPreviousData,
      refetchInterval: (query) => (query.state.data?.items.some((delivery) => inFlight(delivery.status)) ? IN_FLIGHT_REFRESH_MS : IDLE_REFRESH_MS),
    }),
  );
}

export function useWebhookDelivery(workspaceId: string, webhookId: string, deliveryId: string | undefined) {
  const { api } = useConsole();
  return useQuery(
    queryOptions({
      queryKey: webhookKeys.delivery(workspaceId, webhookId, deliveryId ?? ''),
      queryFn: () => api.get<WebhookDeliveryDetail>(`${hookPath(workspaceId, webhookId)}/deliveries/${encodeURIComponent(deliveryId ?? '')}`),
      enabled: Boolean(deliveryId),
      refetchInterval: (query) => (query.state.data && inFlight(query.state.data.status) ? IN_FLIGHT_REFRESH_MS : false),
    }),
  );
}

/** every change to webhooks refreshes the workspace's webhooks and delivery logs */
function useWebhookMutation<Variables, Result>(mutationFn: (variables: Variables) => Promise<Result>, workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.inWorkspace(workspaceId) }) });
}

export function useCreateWebhook(workspaceId: string) {
  const { api } = useConsole();
  return useWebhookMutation((payload: WebhookPayload) => api.post<Webhook & { secret: string }>(hooksPath(workspaceId), payload), workspaceId);
}

export function useUpdateWebhook(workspaceId: string) {
  const { api } = useConsole();
  return useWebhookMutation(({ id, ...change }: Partial<WebhookPayload> & { id: string }) => api.request<Webhook>('PATCH', hookPath(workspaceId, id), change), workspaceId);
}

export function useDeleteWebhook(workspaceId: string) {
  const { api } = useConsole();
  return useWebhookMutation((webhookId: string) => api.delete(hookPath(workspaceId, webhookId)), workspaceId);
}

export function usePingWebhook(workspaceId: string) {
  const { api } = useConsole();
  return useWebhookMutation((webhookId: string) => api.post<WebhookDelivery>(`${hookPath(workspaceId, webhookId)}/ping`), workspaceId);
}

export function useRedeliver(workspaceId: string) {
  const { api } = useConsole();
  return useWebhookMutation(
    ({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) => api.post<WebhookDelivery>(`${hookPath(workspaceId, webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
    workspaceId,
  );
}
