package dev.baton.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits one string into words as a POSIX shell does, without expanding anything: blanks separate
 * words, single quotes keep everything, double quotes keep everything but {@code \"} and
 * {@code \\}, a backslash outside quotes keeps the next character. For {@code --baseline "…"}.
 */
final class Words {
    private Words() {}

    static List<String> split(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                int end = text.indexOf('\'', i + 1);
                if (end < 0) throw new ClientException("unbalanced ' in: " + text);
                word.append(text, i + 1, end);
                i = end;
                inWord = true;
            } else if (c == '"') {
                int j = i + 1;
                for (; j < text.length() && text.charAt(j) != '"'; j++) {
                    char d = text.charAt(j);
                    if (d == '\\' && j + 1 < text.length() && (text.charAt(j + 1) == '"' || text.charAt(j + 1) == '\\'))
                        d = text.charAt(++j);
                    word.append(d);
                }
                if (j >= text.length()) throw new ClientException("unbalanced \" in: " + text);
                i = j;
                inWord = true;
            } else if (c == '\\' && i + 1 < text.length()) {
                word.append(text.charAt(++i));
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) words.add(word.toString());
                word.setLength(0);
                inWord = false;
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) words.add(word.toString());
        if (words.isEmpty()) throw new ClientException("--baseline needs a command");
        return words;
    }
}
