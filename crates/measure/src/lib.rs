//! ciphermeter-measure
