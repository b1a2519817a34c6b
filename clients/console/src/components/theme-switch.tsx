// Light, dark or the system's scheme, as three pressed-or-not buttons.
import { useTheme, type Theme } from "../theme.js";
import { Monitor, Moon, Sun } from "./icons.js";

const CHOICES: { theme: Theme; label: string; Icon: typeof Sun }[] = [
  { theme: "light", label: "Light theme", Icon: Sun },
  { theme: "dark", label: "Dark theme", Icon: Moon },
  { theme: "system", label: "System theme", Icon: Monitor },
];

export function ThemeSwitch() {
  const [theme, setTheme] = useTheme();
  return (
    <fieldset className="theme-switch">
      <legend className="visually-hidden">Theme</legend>
      {CHOICES.map(({ theme: choice, label, Icon }) => (
        <button key={choice} type="button" aria-pressed={theme === choice} aria-label={label} title={label} onClick={() => setTheme(choice)}>
          <Icon size={18} aria-hidden="true" />
        </button>
      ))}
    </fieldset>
  );
}
