//! The path of a value in a message, for error messages: `kwds/kwd[2]/id`.

/// A path being walked; pushing and popping segments as the walk descends and returns.
#[derive(Debug, Default, Clone)]
pub struct Path {
    text: String,
    marks: Vec<usize>,
}

impl Path {
    /// The empty path (the root).
    pub fn new() -> Path {
        Path::default()
    }

    /// Descends into a property or a single element.
    pub fn push(&mut self, name: &str) {
        self.marks.push(self.text.len());
        if !self.text.is_empty() {
            self.text.push('/');
        }
        self.text.push_str(name);
    }

    /// Descends into the `index`-th (from 0) item of a repeated property; written from 1.
    pub fn push_item(&mut self, name: &str, index: usize) {
        self.push(name);
        // Digits written in place, without formatting machinery: this runs for every item of
        // every decoded message.
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        let mut rest = index + 1;
        loop {
            start -= 1;
            digits[start] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        self.text.push('[');
        self.text
            .extend(digits[start..].iter().map(|&digit| char::from(digit)));
        self.text.push(']');
    }

    /// Returns to the parent.
    pub fn pop(&mut self) {
        if let Some(mark) = self.marks.pop() {
            self.text.truncate(mark);
        }
    }

    /// The path of the current position.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The path of a child of the current position.
    pub fn child(&self, name: &str) -> String {
        if self.text.is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", self.text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Path;

    #[test]
    fn writes_items_from_one() {
        let mut path = Path::new();
        path.push("kwds");
        path.push_item("kwd", 1);
        assert_eq!(path.child("id"), "kwds/kwd[2]/id");
        path.push_item("val", 1233);
        assert_eq!(path.as_str(), "kwds/kwd[2]/val[1234]");
        path.pop();
        path.pop();
        path.pop();
        assert_eq!(path.as_str(), "");
    }
}
