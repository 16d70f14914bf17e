// A thin bar at the top of the window while the next page loads (in-app navigation).
let bar: HTMLElement | null = null;
let trickle: ReturnType<typeof setInterval> | undefined;
let value = 0;

function element(): HTMLElement {
  if (!bar || !bar.isConnected) {
    bar = document.createElement('div');
    bar.id = 'ba-progress';
    bar.className = 'ba-progress';
    bar.setAttribute('role', 'progressbar');
    bar.setAttribute('aria-hidden', 'true');
    // Outside <body>: the router swaps the body, the bar must survive the swap.
    document.documentElement.append(bar);
  }
  return bar;
}

function paint(): void {
  element().style.transform = `scaleX(${value})`;
}

export function startProgress(): void {
  clearInterval(trickle);
  value = 0.08;
  const el = element();
  el.classList.remove('ba-progress--done');
  el.hidden = false;
  paint();
  trickle = setInterval(() => {
    value += (0.9 - value) * 0.1;
    paint();
  }, 200);
}

export function finishProgress(): void {
  if (!bar) return;
  clearInterval(trickle);
  value = 1;
  paint();
  const el = bar;
  el.classList.add('ba-progress--done');
  setTimeout(() => { if (el.classList.contains('ba-progress--done')) el.hidden = true; }, 300);
}
