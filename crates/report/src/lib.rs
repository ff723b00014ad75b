//! ciphermeter-report
