export type GreetingKey =
  | 'greeting.lateNight'
  | 'greeting.earlyMorning'
  | 'greeting.morning'
  | 'greeting.noon'
  | 'greeting.afternoon'
  | 'greeting.evening';

/** The greeting for an hour of the day (spec §8): under 5, 9, 12, 14, 18, 24. */
export function greetingKey(hour: number): GreetingKey {
  if (hour < 5) return 'greeting.lateNight';
  if (hour < 9) return 'greeting.earlyMorning';
  if (hour < 12) return 'greeting.morning';
  if (hour < 14) return 'greeting.noon';
  if (hour < 18) return 'greeting.afternoon';
  return 'greeting.evening';
}
