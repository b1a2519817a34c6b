// The colour scheme: the system's (prefers-color-scheme) unless the person chose light or dark.
// The choice alone is kept in localStorage; the tokens stay in styles/tokens.css.
import { useState } from "react";

export type Theme = "system" | "light" | "dark";
const KEY = "waybill.theme";

export function storedTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === "light" || value === "dark" ? value : "system";
}

export function applyTheme(theme: Theme): void {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState(storedTheme);
  return [
    theme,
    (next) => {
      if (next === "system") localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, next);
      applyTheme(next);
      setTheme(next);
    },
  ];
}
