import { EmptyState, PageHeader } from '@packyard/console-kit';

/** Spec §2: billing is a placeholder; its real behaviour is not specified. */
export default function BillingPage() {
  return (
    <div className="pk-page">
      <PageHeader title="Billing" description="Subscription and usage billing" />
      <EmptyState icon="card" title="Billing is coming soon">
        Plans and invoices will appear here.
      </EmptyState>
    </div>
  );
}
