// What an empty conversation shows, before and after the conversation's code has loaded.
import type { ReactNode } from 'react';

export default function Welcome({ title, lead }: { title: string; lead: string }): ReactNode {
  return (
    <div className="chat-welcome">
      <h2>{title}</h2>
      <p className="muted">{lead}</p>
    </div>
  );
}
