// A form's errors listed at its top when there are several (WCAG 3.3.1, as GOV.UK forms do): the
// list takes focus and is announced, and each entry links to its field, named by its label.
import { useEffect, useId, useRef, type ReactElement, type RefObject } from 'react';
import { translate, type Fields, type Messages } from './form-helpers';

interface Props {
  errors: Fields;
  formRef: RefObject<HTMLFormElement | null>;
  messages: Messages;
}

function fieldOf(form: HTMLFormElement | null, name: string): HTMLElement | null {
  const item = form?.elements.namedItem(name) ?? null;
  if (item instanceof RadioNodeList) return (item[0] as HTMLElement | undefined) ?? null;
  return item as HTMLElement | null;
}

function labelOf(field: HTMLElement | null): string {
  const label = field && 'labels' in field ? (field as HTMLInputElement).labels?.[0] : null;
  if (!label) return '';
  return (label.querySelector('span:not(.field-error)')?.textContent ?? label.textContent ?? '').trim();
}

export default function ErrorSummary({ errors, formRef, messages }: Props): ReactElement | null {
  const box = useRef<HTMLDivElement>(null);
  const id = useId();
  const names = Object.keys(errors).filter((name) => name !== '_' && errors[name]);
  const several = names.length >= 2;
  const key = names.join('\n');
  useEffect(() => {
    if (several) box.current?.focus();
  }, [several, key]);
  if (!several) return null;
  return (
    <div className="error-summary" role="alert" tabIndex={-1} ref={box} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{translate(messages, 'validation.summary')}</h2>
      <ul>
        {names.map((name) => {
          const field = fieldOf(formRef.current, name);
          const label = labelOf(field);
          return (
            <li key={name}>
              <a href={`#${field?.id || name}`} onClick={(e) => { e.preventDefault(); fieldOf(formRef.current, name)?.focus(); }}>
                {label ? `${label}: ` : ''}{errors[name]}
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
