// The header's unread badge: a red dot and the count (`9+` above nine). The first value comes from
// the server, so there is no flash; then the browser's one push stream keeps it current.
import { useEffect, type ReactElement } from 'react';
import { useStore } from '@nanostores/react';
import { $unread, setUnread } from '../../lib/client/stores/messages';
import { startLive } from '../../lib/client/message-live';
import { badgeText } from '../../lib/shared/messages';
import './messages.css';

export interface UnreadBadgeProps {
  initial: number;
  /** "{count} unread messages" and "No unread messages" in the page's language. */
  label: string;
  none: string;
}

let seeded = false;

export default function UnreadBadge(props: UnreadBadgeProps): ReactElement {
  if (!seeded && typeof window !== 'undefined') {
    seeded = true;
    setUnread(props.initial);
  }
  const count = useStore($unread, {});
  const shown = typeof window === 'undefined' ? props.initial : count;
  useEffect(() => { startLive(); }, []);
  const text = badgeText(shown);
  return (
    <span className="msg-badge-wrap" data-unread={shown} role="status" aria-live="polite" aria-label={shown ? props.label.replace('{count}', String(shown)) : props.none}>
      {text && <span className="msg-badge" aria-hidden="true">{text}</span>}
    </span>
  );
}
