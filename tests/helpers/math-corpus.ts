// TeX formulas a forum writes, for tests of the math module and of what the site's sanitiser keeps of
// its output: fractions, roots, matrices, cases, sums, integrals, accents, \text, \color,
// \operatorname, aligned, arrays, boxes, sizes, a commutative diagram. All of them parse.
import type { MarkdownItem } from '../../src/lib/server/modules/host/types';

/** The formulas (43), each with the kind of span it is written in. */
export const MATH_CORPUS: MarkdownItem[] = [
  ['inline', 'E=mc^2'], ['inline', '\\frac{a}{b}'], ['inline', 'x^2+y^2=z^2'], ['inline', '\\sqrt{2} + \\sqrt[3]{x}'],
  ['block', '\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}'], ['block', '\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}'],
  ['block', '\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}'], ['fence', '\\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}'],
  ['block', 'f(x) = \\begin{cases} x & x \\ge 0 \\\\ -x & x < 0 \\end{cases}'], ['inline', '\\hat{x} \\bar{y} \\vec{v} \\dot{a} \\ddot{b} \\tilde{n}'],
  ['inline', '\\text{if } x > 0'], ['inline', '\\color{red}{x} + \\textcolor{blue}{y}'], ['inline', '\\operatorname{sgn}(x)'],
  ['fence', '\\begin{aligned} a &= b + c \\\\ d &= e \\end{aligned}'], ['inline', '\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1'],
  ['inline', '\\prod_{k=1}^n k'], ['inline', '\\alpha\\beta\\gamma\\Gamma\\Delta\\Omega'], ['inline', '\\mathbb{R}\\mathcal{L}\\mathfrak{g}\\mathscr{F}\\mathbf{v}\\mathrm{d}'],
  ['inline', '\\left( \\frac{a}{b} \\right)'], ['inline', '\\binom{n}{k}'], ['inline', '\\overline{AB} \\underline{cd}'], ['inline', '\\overbrace{a+b}^{n} \\underbrace{c}_{m}'],
  ['block', '\\oint_C \\mathbf{F}\\cdot d\\mathbf{r}'], ['inline', '\\partial_t u = \\nabla^2 u'], ['inline', 'a \\equiv b \\pmod{n}'],
  ['inline', '\\{1,2\\} \\cup \\emptyset \\subseteq A'], ['inline', '\\forall x \\exists y'], ['inline', "f'(x) + f''(x)"],
  ['block', '\\begin{array}{c|c} 1 & 2 \\\\ \\hline 3 & 4 \\end{array}'], ['inline', '\\cancel{x}'], ['inline', '\\boxed{x=1}'],
  ['inline', 'x \\quad y \\qquad z \\, w \\! v'], ['inline', '\\underset{x}{\\arg\\min}'], ['inline', '\\xrightarrow{f}'],
  ['block', '\\begin{align} x &= 1 \\\\ y &= 2 \\end{align}'], ['block', '\\begin{vmatrix} a & b \\\\ c & d \\end{vmatrix}'],
  ['inline', '\\tfrac12 + \\dfrac{1}{2}'], ['inline', '\\log_2 n + \\ln x + \\max(a,b)'], ['inline', '\\colorbox{yellow}{x} \\fcolorbox{red}{yellow}{y}'],
  ['inline', '\\textbf{bold} \\textit{it}'], ['inline', '{}^{14}_{6}\\mathrm{C}'],
  ['inline', '\\pmb{x} \\Large y'], ['block', '\\begin{CD} A @>a>> B \\\\ @VbVV @VVcV \\\\ C @>d>> D \\end{CD}'],
].map(([kind, src]) => ({ kind: kind as MarkdownItem['kind'], src: src as string }));
